import { useStdout } from 'ink';
import { useEffect, useState } from 'react';

export interface TerminalSize {
  columns: number;
  rows: number;
}

const sizeOf = (stdout: NodeJS.WriteStream): TerminalSize => ({
  columns: stdout.columns || 100,
  rows: stdout.rows || 40,
});

/** The terminal's size, drawn again on each resize: the charts and lists are laid out for what fits. */
export function useTerminalSize(): TerminalSize {
  const { stdout } = useStdout();
  const [size, setSize] = useState(() => sizeOf(stdout));
  useEffect(() => {
    const onResize = () => setSize(sizeOf(stdout));
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return size;
}
