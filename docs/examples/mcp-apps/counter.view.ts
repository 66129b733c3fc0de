// The HTML of the counter app, served by its @AppResource. Kept in a module, as `armature generate app`
// does, so that tsc compiles it into dist/ and `armature build` bundles it: nothing to copy.
export const COUNTER_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Counter</title>
    <style>
      body { font: 16px system-ui, sans-serif; margin: 1rem; }
      output { font-size: 2rem; font-weight: bold; }
    </style>
  </head>
  <body>
    <p>Total: <output id="total">…</output></p>
    <button type="button" id="add" disabled>Add 1</button>
    <button type="button" id="reset" disabled>Reset</button>
    <p id="status"></p>
    <script type="module">
      // The app talks to its host with MCP's JSON-RPC over postMessage (the MCP Apps protocol):
      // ui/initialize, then the host sends the tool's result; tools/call goes through the host.
      const total = document.getElementById('total');
      const status = document.getElementById('status');
      const pending = new Map();
      let nextId = 1;

      function request(method, params) {
        const id = nextId++;
        window.parent.postMessage({ jsonrpc: '2.0', id, method, params }, '*');
        return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
      }

      // The tool's structuredContent is what the app reads.
      function show(result) {
        if (result.isError) status.textContent = result.content?.[0]?.text ?? 'the call failed';
        else total.textContent = String(result.structuredContent.total);
      }

      window.addEventListener('message', (event) => {
        if (event.source !== window.parent) return;
        const message = event.data;
        if (message?.id !== undefined && pending.has(message.id)) {
          const { resolve, reject } = pending.get(message.id);
          pending.delete(message.id);
          if (message.error) reject(new Error(message.error.message));
          else resolve(message.result);
        } else if (message?.method === 'ui/notifications/tool-result') {
          show(message.params);
        }
      });

      async function call(name, args) {
        try {
          show(await request('tools/call', { name, arguments: args }));
        } catch (error) {
          status.textContent = error.message;
        }
      }

      await request('ui/initialize', {
        protocolVersion: '2026-01-26',
        appInfo: { name: 'counter-view', version: '1.0.0' },
        appCapabilities: {},
      });
      window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/initialized', params: {} }, '*');
      const add = document.getElementById('add');
      const reset = document.getElementById('reset');
      add.onclick = () => call('add', { by: 1 });
      reset.onclick = () => call('reset', {});
      add.disabled = reset.disabled = false;
    </script>
  </body>
</html>
`;
