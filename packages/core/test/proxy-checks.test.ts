// The two checks the proxy puts on what a remote server sends, case by case: the URL of a URL
// elicitation before it may reach the caller, and the shape of a URI template before it is served.
import { describe, expect, it } from 'vitest';
import { urlProblem } from '../src/remote/elicitation-url.js';
import { templateProblem } from '../src/remote/template-shape.js';

describe('the URL of a relayed URL elicitation', () => {
  it.each([
    'https://auth.example.com/sign-in?state=1',
    'HTTPS://AUTH.EXAMPLE.COM/',
    'http://localhost:3000/callback',
    'http://127.0.0.1/x',
    'http://127.9.8.7/x',
    'http://[::1]:8080/x',
    'http://0x7f.1/x', // the URL parser reads 127.0.0.1
  ])('passes on %s', (url) => {
    expect(urlProblem(url)).toBeUndefined();
  });

  it.each([
    ['javascript:alert(1)', 'its scheme is javascript:'],
    ['JavaScript:alert(1)', 'its scheme is javascript:'],
    ['data:text/html,<script>alert(1)</script>', 'its scheme is data:'],
    ['file:///etc/passwd', 'its scheme is file:'],
    ['vbscript:msgbox', 'its scheme is vbscript:'],
    ['ftp://example.com/x', 'its scheme is ftp:'],
    ['http://example.com/login', 'it is http: to another machine than this one'],
    ['http://localhost.evil.example/', 'it is http: to another machine than this one'],
    ['http://127.0.0.1.nip.io/', 'it is http: to another machine than this one'],
    ['https://bank.example@evil.example/', 'it carries a user name or password'],
    ['http://127.0.0.1:pass@evil.example/', 'it is http: to another machine than this one'],
    ['https://user:pass@example.com/', 'it carries a user name or password'],
    ['not a url', 'it is not a URL'],
    ['//example.com/x', 'it is not a URL'],
    ['', 'it is not a URL'],
  ])('refuses %s: %s', (url, problem) => {
    expect(urlProblem(url)).toBe(problem);
  });

  it('refuses what is not a string', () => {
    for (const url of [undefined, null, 42, { href: 'https://example.com' }]) expect(urlProblem(url)).toBe('it is not a URL');
  });
});

describe('the shape of a remote URI template', () => {
  it.each([
    'demo://resource/dynamic/text/{resourceId}',
    'note://item/{id}',
    'users://{user}/posts/{post}',
    'file:///{+path}',
    'repo://{owner}/{repo}/blob/{+path}',
    'search://items{?q,limit}',
    'x://{id}.json',
    'x://a{/segments}{/more}',
    'x://{a}/{#frag}',
    'static://no/variables',
  ])('serves %s', (template) => {
    expect(templateProblem(template)).toBeUndefined();
  });

  it.each([
    ['x://{a}{b}', 'two variables share a path segment, so a URI can be split between them in many ways'],
    ['x://{a}-{b}', 'two variables share a path segment, so a URI can be split between them in many ways'],
    ['x://{a}.{b}/c', 'two variables share a path segment, so a URI can be split between them in many ways'],
    ['x://{a}{.ext}', 'two variables share a path segment, so a URI can be split between them in many ways'],
    [`x://${'{a}'.repeat(30)}`, 'two variables share a path segment, so a URI can be split between them in many ways'],
    ['x://{a}/{b}#{#frag}', 'two variables share a path segment, so a URI can be split between them in many ways'],
    ['x://{+a}/{+b}', 'a {+...} or {#...} variable is followed by another'],
    ['x://{+a}/{b}', 'a {+...} or {#...} variable is followed by another'],
    ['x://{#a}{b}', 'a {+...} or {#...} variable is followed by another'],
  ])('does not serve %s: %s', (template, problem) => {
    expect(templateProblem(template)).toBe(problem);
  });
});
