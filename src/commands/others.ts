/** Every command but the read commands (the declared operations' and api), in a file apart: a read command's run never parses them. */
export { newCmdAuth } from './auth.js';
export { newCmdCache } from './cache.js';
export { newCmdComplete, newCmdCompletion } from './completion.js';
export { newCmdConfig } from './config.js';
export { newCmdDoctor } from './doctor.js';
export { newCmdHelp } from './help.js';
export { newCmdMcp } from './mcp.js';
export { newCmdSandbox } from './sandbox.js';
export { newCmdSchema } from './schema.js';
export { newCmdVersion } from './version.js';
