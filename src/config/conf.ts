/** conf and the lock as a file apart, loaded only on writes: a named export crosses the bundle's boundary as it is, a default would not. */
export { default as Conf } from 'conf';
export { acquireLock } from './lock.js';
