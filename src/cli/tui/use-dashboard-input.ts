import { useApp, useInput } from 'ink';
import type { MutableRefObject } from 'react';
import { splitInput, type KeyPress, type PressOutcome } from './keys.js';

/**
 * The key handling both dashboards share: until data has loaded only quitting works; afterwards each key of a
 * (possibly fast-typed) chunk goes through the model's `press`, and keys after one that quits or starts a command are
 * dropped, as they would be when typed (the busy state ignores them).
 */
export function useDashboardInput<Snapshot, View, Command>(options: {
  snapshotRef: MutableRefObject<Snapshot | null>;
  viewRef: MutableRefObject<View>;
  press: (view: View, snapshot: Snapshot, input: string, key: KeyPress) => PressOutcome<View, Command>;
  setView: (view: View) => void;
  execute: (command: Command) => void | Promise<void>;
}): void {
  const { exit } = useApp();
  useInput((input, key) => {
    const current = options.snapshotRef.current;
    if (!current) {
      if (input === 'q' || key.escape) exit();
      return;
    }
    for (const one of splitInput(input, key)) {
      const outcome = options.press(options.viewRef.current, current, one.input, one.key);
      options.setView(outcome.state);
      if (outcome.quit) exit();
      if (outcome.run) void options.execute(outcome.run);
      if (outcome.quit || outcome.run) return;
    }
  });
}
