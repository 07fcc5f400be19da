// A fake local-model host for test/unit/embed-lifecycle.test.ts: forked with its data as JSON in
// argv[2], it answers the embedder protocol (worker/search/embed/protocol.ts) without a model.
// Plain CommonJS, so a process starts it without the TypeScript loader (about 0.05 CPU s a start
// instead of 0.3-0.6 s).
// Each text `t<n>` comes back as [n, batch size, host id]; special texts misbehave.
'use strict';

function fakeHost(data, port) {
  const post = (m) => port.post(m);
  if (data.modelDir === 'FATAL') {
    post({ type: 'fatal', message: 'no weights here' });
    return;
  }
  if (data.modelDir === 'NEVER') {
    setInterval(() => {}, 1000); // "loading" forever
    return;
  }
  post({ type: 'ready', backend: 'fake', loadMs: 1 });
  port.on((msg) => {
    if (msg.texts.includes('CRASH')) process.exit(3);
    if (msg.texts.includes('THROW')) throw new Error('boom in thread');
    if (msg.texts.includes('HANG')) return;
    if (msg.texts.includes('FAIL')) return post({ type: 'error', id: msg.id, message: 'bad input' });
    const out = new Float32Array(msg.texts.length * 3);
    msg.texts.forEach((t, i) => out.set([Number(t.slice(1)), msg.texts.length, port.id], i * 3));
    post({ type: 'result', id: msg.id, dims: 3, data: out });
  });
}

process.on('disconnect', () => process.exit(0));
fakeHost(JSON.parse(process.argv[2]), { post: (m) => process.send(m), on: (l) => process.on('message', l), id: process.pid });
