/** A setting that cannot be used; the daemon and the CLI print its message and stop. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
