import { Box, Text } from 'ink';
import { drawChart } from '../chart.js';

interface Props {
  title: string;
  values: number[];
  /** Rows for the plot itself, and the columns the whole chart may take (labels included). */
  height: number;
  width: number;
  /** A y label: figures in the screen's units (currency amounts with their code). */
  label: (value: number) => string;
  /** The first and last period under the chart, so its x axis reads as dates. */
  from: string;
  to: string;
}

/** Width of the y labels, and the columns asciichart adds between them and the plot. */
export const LABEL_WIDTH = 14;
export const CHART_CHROME = LABEL_WIDTH + 3;

export function Chart({ title, values, height, width, label, from, to }: Props) {
  const axis = `${' '.repeat(CHART_CHROME)}${from}`;
  const span = Math.max(CHART_CHROME + values.length, axis.length + to.length + 2);
  return (
    <Box flexDirection="column" width={width} marginTop={1}>
      <Text bold>{title}</Text>
      <Text wrap="truncate-end">{drawChart(values, height, LABEL_WIDTH, label)}</Text>
      <Text dimColor wrap="truncate-end">
        {`${axis}${to.padStart(span - axis.length)}`}
      </Text>
    </Box>
  );
}
