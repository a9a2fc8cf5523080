import type { Invocation } from '../../action.js';
import { configPath, updateConfig } from '../../config.js';
import { info, printJson } from '../../output.js';

export async function run({ args, opts }: Invocation<{ json?: boolean }>): Promise<void> {
  const name = String(args[0]);
  let created = false;
  updateConfig((config) => {
    // Switching to a new name creates an empty profile, ready for `till login`.
    if (!config.profiles[name]) {
      config.profiles[name] = {};
      created = true;
    }
    config.currentProfile = name;
  }, configPath());
  if (opts.json) printJson({ currentProfile: name, created });
  else info(`Now using profile "${name}"${created ? ' (new; sign in with `till login`)' : ''}`);
}
