import { useCallback, useEffect, useRef, useState } from 'react';
import { useDashboardInput } from '../use-dashboard-input.js';
import type { CustomerDetail, RevenueData, Snapshot } from './data.js';
import { followSelection, initialView, press, type Command, type ViewState } from './model.js';

/** How often the screen asks again: new orders show up within this, and the rollups make each ask cheap. */
export const REFRESH_MS = 2_000;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export interface Dashboard {
  snapshot: Snapshot | null;
  view: ViewState;
}

/**
 * Carries the model out: loads the figures for the view's window and polls them every `refreshMs` (again at once
 * when a key changes the window), turns key presses into state through `press`, and runs the actions against the
 * data layer, refreshing right after each so its effect shows without waiting for the next tick.
 */
export function useDashboard(data: RevenueData, initial?: Snapshot, refreshMs = REFRESH_MS): Dashboard {
  const [snapshot, setSnapshotState] = useState<Snapshot | null>(initial ?? null);
  const [view, setViewState] = useState<ViewState>(() =>
    initial ? { ...initialView, window: initial.window } : initialView,
  );
  // Refs as well as state: several keys can arrive in one read from stdin, and each must see the state the one
  // before it left, not the state of the last render.
  const snapshotRef = useRef(snapshot);
  const viewRef = useRef(view);
  const loading = useRef<Promise<void> | null>(null);
  const setView = useCallback((next: ViewState | ((current: ViewState) => ViewState)) => {
    viewRef.current = typeof next === 'function' ? next(viewRef.current) : next;
    setViewState(viewRef.current);
  }, []);

  /** One load at a time: a slow daemon must not pile up requests tick after tick. Failures go to the status line. */
  const refresh = useCallback((): Promise<void> => {
    loading.current ??= (async () => {
      try {
        const before = snapshotRef.current;
        const after = await data.load(viewRef.current.window);
        if (before) setView((current) => followSelection(current, before, after));
        setView((current) => (current.status?.refresh ? { ...current, status: null } : current));
        snapshotRef.current = after;
        setSnapshotState(after);
      } catch (error) {
        setView((current) => ({
          ...current,
          status: { tone: 'error', text: `could not refresh: ${messageOf(error)}`, refresh: true },
        }));
      } finally {
        loading.current = null;
      }
    })();
    return loading.current;
  }, [data, setView]);

  useEffect(() => {
    if (!snapshotRef.current) void refresh();
    const timer = setInterval(() => void refresh(), refreshMs);
    return () => clearInterval(timer);
  }, [refresh, refreshMs]);

  // A new range or interval is asked for at once (after any load under way, which was for the old window).
  const { range, interval } = view.window;
  const shown = snapshot?.window;
  useEffect(() => {
    if (!shown || (shown.range === range && shown.interval === interval)) return;
    void (async () => {
      await loading.current;
      await refresh();
    })();
  }, [range, interval, shown, refresh]);

  const execute = useCallback(
    async (command: Command) => {
      let status: ViewState['status'];
      let customer: CustomerDetail | null = null;
      try {
        if (command.kind === 'open') {
          customer = await data.openCustomer(command.customerId);
          status = null;
        } else {
          const said =
            command.kind === 'retry'
              ? await data.retryPayment(command.subscriptionId)
              : await data.cancel(command.subscriptionId);
          status = { tone: 'done', text: said };
        }
      } catch (error) {
        status = { tone: 'error', text: messageOf(error) };
      }
      await loading.current;
      await refresh();
      setView((current) => ({ ...current, mode: { kind: 'browse' }, status, customer }));
    },
    [data, refresh, setView],
  );

  useDashboardInput({ snapshotRef, viewRef, press, setView, execute });

  return { snapshot, view };
}
