import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError } from './errors.js';

export interface Profile {
  url?: string;
  token?: string;
  email?: string;
}

export interface CliConfig {
  currentProfile?: string;
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = 'default';

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'till', 'config.json');
}

export function readConfig(file = configPath()): CliConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${file} is not valid JSON (${(error as Error).message}); fix or delete it`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new CliError(`${file} must hold a JSON object`);
  const config = parsed as Partial<CliConfig>;
  const profiles = config.profiles && typeof config.profiles === 'object' ? config.profiles : {};
  return { currentProfile: typeof config.currentProfile === 'string' ? config.currentProfile : undefined, profiles };
}

/**
 * The file holds session tokens, so it is created 0600 inside a 0700 directory, written to a temporary file and
 * renamed so a crash never leaves half a file, and re-chmodded in case someone loosened it by hand.
 */
export function writeConfig(config: CliConfig, file = configPath()): void {
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}

/** Reads, changes and writes the config in one step; `change` mutates the object it is given. */
export function updateConfig(change: (config: CliConfig) => void, file = configPath()): CliConfig {
  const config = readConfig(file);
  change(config);
  writeConfig(config, file);
  return config;
}
