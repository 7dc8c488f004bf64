// node:http through the built-in loader instead of an ESM import. Node builds a built-in's ESM facade
// by reading every export, and node:http's lazy WebSocket, CloseEvent and MessageEvent getters then
// load Node's own bundled undici (fetch and WebSocket, which the gateway never uses): ~10 MB of RSS
// in every serving process. Types still come from `import type … from 'node:http'`.
export const { createServer, ServerResponse, STATUS_CODES } = process.getBuiltinModule('node:http');
