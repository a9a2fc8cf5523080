import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import {
  createHeapTrimmer,
  exposedGc,
  HEAP_TRIM,
  limitHeapGrowth,
  type HeapTrimProbe,
} from '../../src/daemon/ops/heap-trim.js';

const MB = 1024 * 1024;

/** A probe whose readings the test sets; each collection gives back `gain` bytes. */
function fakeProbe() {
  const state = { busy: 0, committed: 400 * MB, gain: 100 * MB, collections: 0 };
  const probe: HeapTrimProbe = {
    busy: () => state.busy,
    heap: () => ({ committed: state.committed }),
    collect: () => {
      state.collections += 1;
      state.committed -= state.gain;
    },
  };
  return { state, probe };
}

describe('the heap trimmer', () => {
  it('collects only while the event loop is idle and the heap is past its floor', () => {
    const { state, probe } = fakeProbe();
    const trimmer = createHeapTrimmer(probe);
    state.busy = 0.6;
    expect(trimmer.tick()).toBe(false);
    state.busy = HEAP_TRIM.idleBelow;
    expect(trimmer.tick()).toBe(false);
    state.busy = 0.01;
    state.committed = HEAP_TRIM.floorBytes - 1;
    expect(trimmer.tick()).toBe(false);
    expect(state.collections).toBe(0);
    state.committed = 400 * MB;
    expect(trimmer.tick()).toBe(true);
    expect(state.collections).toBe(1);
  });

  it('collects a few times per idle spell, and again after the next busy one', () => {
    const { state, probe } = fakeProbe();
    const trimmer = createHeapTrimmer(probe);
    state.committed = 2_000 * MB;
    for (let tick = 0; tick < 10; tick++) trimmer.tick();
    expect(state.collections).toBe(HEAP_TRIM.collectionsPerIdleSpell);
    state.busy = 0.9;
    trimmer.tick();
    state.busy = 0;
    trimmer.tick();
    expect(state.collections).toBe(HEAP_TRIM.collectionsPerIdleSpell + 1);
  });

  it('stops for the spell once a collection gives back too little', () => {
    const { state, probe } = fakeProbe();
    const trimmer = createHeapTrimmer(probe);
    state.gain = HEAP_TRIM.minGainBytes - 1;
    for (let tick = 0; tick < 10; tick++) trimmer.tick();
    expect(state.collections).toBe(1);
  });

  it("gets V8's collector without --expose-gc, and its collections give freed old space back", () => {
    const collect = exposedGc();
    const kept: unknown[] = [];
    // Garbage interleaved with survivors, so the old space grows the way a daemon's does under load.
    let window: unknown[][] = [];
    for (let round = 0; round < 40; round++) {
      const batch = Array.from({ length: 50_000 }, (_, i) => ({ text: `${'x'.repeat(30)}${i}`, pair: [i, i + 1] }));
      window.push(batch);
      if (window.length > 6) window = window.slice(1);
      for (let i = 0; i < 200; i++) kept.push(batch[i * 250]);
    }
    window = [];
    const committed = () => v8.getHeapStatistics().total_heap_size;
    const before = committed();
    for (let i = 0; i < HEAP_TRIM.collectionsPerIdleSpell; i++) collect();
    expect(kept).toHaveLength(8_000);
    expect(committed()).toBeLessThan(before / 2);
  });

  it("limits the heap's growth unless node was started with a growth of its own", () => {
    expect(limitHeapGrowth(['--heap-growing-percent=50'])).toBe(false);
    expect(limitHeapGrowth(['--no-warnings', '--heap_growing_percent=30'])).toBe(false);
    expect(limitHeapGrowth(['--heap-growing-percent'])).toBe(false);
    expect(limitHeapGrowth(['--heap-growing-percentage=5', '--expose-gc'])).toBe(true);
    expect(limitHeapGrowth([])).toBe(true);
  });
});
