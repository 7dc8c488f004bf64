// The Node.js the gateway needs (built-in node:sqlite, type stripping, module.enableCompileCache). Plain
// JavaScript that any Node can load, so an older one gets this one clear line instead of a crash.

export const REQUIRED_NODE_MAJOR = 24;

/** A sentence saying why this Node cannot run the gateway, or null when it can. */
export function nodeVersionProblem(version) {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1] ?? 0);
  if (major >= REQUIRED_NODE_MAJOR) return null;
  return `gateway needs Node.js ${REQUIRED_NODE_MAJOR} or newer, and this is ${version}. The project pins Node ${REQUIRED_NODE_MAJOR} as a dev dependency: after \`npm ci\`, run it through npm (\`npm start\`, \`npx gateway …\`), or install Node ${REQUIRED_NODE_MAJOR}.`;
}
