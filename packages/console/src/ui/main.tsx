import { render } from 'preact';
import { Console } from './console.js';
import './console.css';

render(<Console />, document.getElementById('console') as HTMLElement);
