/**
 * conf, the config file's writer, as a module of gymctl's own: the build
 * makes it a file apart (loaded only on writes), and a named export
 * crosses that boundary as it is, where a default export would not.
 */
export { default as Conf } from 'conf';
