// asciichart ships no types; the one function Till uses.
declare module 'asciichart' {
  export function plot(
    series: number[] | number[][],
    config?: { height?: number; format?: (x: number) => string },
  ): string;
}
