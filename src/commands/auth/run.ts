/** `gymctl auth login | status | logout`: the handlers, one file each, loaded together when one of them runs (dist/side/auth.cjs). */
export { type LoginDeps, type LoginFlags, runLogin } from './login.js';
export { type LogoutDeps, runLogout } from './logout.js';
export { type StatusDeps, runStatus } from './status.js';
