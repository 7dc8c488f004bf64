// The start of a script run in a fresh Node process (`node --input-type=module --eval`) by tests that
// a package loads only when its feature is configured: from here on, every module URL the process
// resolves is added to `loaded`, a Set the rest of the script reports.
export const RECORD_LOADED_MODULES = `
import { registerHooks } from 'node:module';
const loaded = new Set();
registerHooks({ resolve(specifier, context, nextResolve) { const result = nextResolve(specifier, context); loaded.add(result.url); return result; } });
`;
