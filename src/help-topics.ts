/** `gymctl help exit-codes` and `gymctl help environment`: reference tables, as `gh help` has. */
export const HELP_TOPICS = {
  'exit-codes': `Exit codes

  0    success (also when a reader such as head closes stdout early)
  1    internal: something unexpected; or a config file that cannot be read
  2    usage: bad arguments, an invalid id, an unsafe base URL; nothing was sent
  3    not_found: the academy or member does not exist
  4    unauthorized: no key, or the server refused it
  5    unavailable: network failure, timeout, rate limit or server error that outlasted the retries
  6    invalid_response: the body was not JSON, too large, or did not match the spec
  130  interrupted (Ctrl-C)

With several ids, the exit code is that of the first failure in argument order.
`,
  environment: `Environment variables

  GYMCTL_API_KEY       an API key that overrides the stored one (there is no key flag)
  GYMCTL_BASE_URL      the API base address (--base-url wins over it)
  GYMCTL_PROFILE       the stored profile to use (--profile wins over it)
  GYMCTL_CONFIG_DIR    the config folder (default $XDG_CONFIG_HOME/gymctl, ~/.config/gymctl)
  GYMCTL_DEBUG         1: trace requests on stderr, the key redacted (as --debug)
  GYMCTL_FORCE_TTY     any value: format output as for a terminal, even in a pipe
  NO_COLOR             any value: no colour (as --no-color)
  FORCE_COLOR          colour even when not on a terminal; 0 turns it off
  HTTPS_PROXY          proxy for https base URLs (also https_proxy)
  HTTP_PROXY           proxy for http base URLs (also http_proxy)
  NO_PROXY             hosts to reach without the proxy (also no_proxy)
  NODE_EXTRA_CA_CERTS  a PEM file of extra certificate authorities to trust
  XDG_CONFIG_HOME      where the config folder goes by default

Each setting comes from its flag, else the environment, else the stored profile, else the default.
`,
} as const;

export type HelpTopic = keyof typeof HELP_TOPICS;
