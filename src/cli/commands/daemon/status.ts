import { loadConfig } from '../../../core/config/index.js';
import type { Invocation } from '../../action.js';
import { printJson, printLine } from '../../output.js';
import { daemonFiles, isDaemonProcess, localUrl, probe, readPid, readStateUrl } from './process.js';

export async function run({ opts }: Invocation<{ json?: boolean }>): Promise<number> {
  // The secret is irrelevant to a status check; passing one keeps loadConfig from generating the secret file.
  const config = loadConfig(process.env, { secret: 'not-needed-for-status' });
  const files = daemonFiles(config.dataDir);
  const pid = readPid(files.pidFile);
  const running = pid !== null && isDaemonProcess(pid);
  // Where the daemon was started, not where today's settings would put one.
  const url = (running && readStateUrl(files, pid)) || localUrl(config);
  const responding = running ? await probe(url) : false;
  if (opts.json) printJson({ running, pid: running ? pid : null, url, responding, ...files });
  else if (running) printLine(`running (pid ${pid}) at ${url}${responding ? '' : ', but not answering there'}`);
  else printLine('stopped');
  // A daemon that does not answer serves nobody: that is a failure too.
  return running && responding ? 0 : 1;
}
