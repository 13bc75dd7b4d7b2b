'use strict';
// Preloaded into a bench server by bench/socket-writes.js (`node --require bench/count-writes.js bench/server.js …`):
// counts the socket writes (system calls: one per `_writeGeneric`, a `writev` for several buffers) and the buffers
// they carry; { type: 'writes' } over IPC answers the counts so far.

const net = require('node:net');

let writes = 0;
let buffers = 0;
const writeGeneric = net.Socket.prototype._writeGeneric;
net.Socket.prototype._writeGeneric = function countedWriteGeneric(writev, data, encoding, callback) {
  writes++;
  buffers += writev ? data.length : 1;
  return writeGeneric.call(this, writev, data, encoding, callback);
};

process.on('message', (message) => {
  if (message && message.type === 'writes') process.send({ type: 'writes', seq: message.seq, writes, buffers });
});
