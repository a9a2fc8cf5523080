import { CHART_CHROME } from './components/chart.js';

// Where things go for a terminal of a given size: pure, so a resize is a new layout and nothing else.

export interface Layout {
  /** Charts next to each other on a wide terminal, one above the other otherwise. */
  sideBySide: boolean;
  chartWidth: number;
  chartHeight: number;
  /** Points a chart can draw: one column each. */
  points: number;
  /** Rows each list draws before it scrolls. */
  listRows: number;
}

const WIDE = 110;

export function layoutFor(columns: number, rows: number, customerOpen: boolean): Layout {
  const sideBySide = columns >= WIDE;
  const chartWidth = sideBySide ? Math.floor((columns - 1) / 2) : columns;
  const listRows = rows >= 40 ? 5 : 3;
  // Header, figures, two titled lists, the footer and the customer box: what is left goes to the charts.
  const fixed = 3 + 2 * (2 + listRows) + 3 + (customerOpen ? 6 : 0) + 1;
  const available = rows - fixed;
  // Each chart also spends a title, a margin and its x axis.
  const height = sideBySide ? available - 3 : Math.floor(available / 2) - 3;
  return {
    sideBySide,
    chartWidth,
    chartHeight: Math.min(Math.max(height, 3), 15),
    points: Math.max(chartWidth - CHART_CHROME - 1, 2),
    listRows,
  };
}
