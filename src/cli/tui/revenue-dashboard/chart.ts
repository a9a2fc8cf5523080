import { plot } from 'asciichart';

// The charts' arithmetic, free of Ink: fitting a series into the columns a terminal has, and plotting it with
// asciichart (one column per point, the y labels on the left).

/** How a series shrinks when it has more points than columns: flows add up, levels keep the latest figure. */
export type Fold = 'sum' | 'last';

/** At most `width` points from `values`, each standing for a run of neighbouring periods in order. */
export function fitSeries(values: number[], width: number, fold: Fold): number[] {
  const columns = Math.max(1, Math.floor(width));
  if (values.length <= columns) return values;
  const fitted: number[] = [];
  for (let column = 0; column < columns; column++) {
    const from = Math.floor((column * values.length) / columns);
    const to = Math.floor(((column + 1) * values.length) / columns);
    const run = values.slice(from, to);
    fitted.push(fold === 'sum' ? run.reduce((total, value) => total + value, 0) : run.at(-1)!);
  }
  return fitted;
}

/** A short series widened to the columns there are, each point drawn as an equal run, so the chart fills its box. */
export function stretchSeries(values: number[], width: number): number[] {
  const repeat = Math.floor(width / Math.max(values.length, 1));
  return repeat <= 1 ? values : values.flatMap((value) => Array<number>(repeat).fill(value));
}

/** fitSeries then stretchSeries: any number of periods drawn across about `width` columns. */
export function seriesFor(values: number[], width: number, fold: Fold): number[] {
  return stretchSeries(fitSeries(values, width, fold), width);
}

/** A chart of `values` in `height` rows, labelled by `label` (padded to `labelWidth`); a flat line when empty. */
export function drawChart(values: number[], height: number, labelWidth: number, label: (value: number) => string) {
  const points = values.length > 0 ? values : [0];
  // A constant series has no range to scale: give asciichart one, so the line sits at the bottom of the chart.
  const min = Math.min(0, ...points);
  const max = Math.max(...points, min + 1);
  return plot(points, {
    height: Math.max(1, height - 1),
    min,
    max,
    padding: ' '.repeat(labelWidth),
    format: (value: number) => label(value).slice(0, labelWidth).padStart(labelWidth),
  });
}
