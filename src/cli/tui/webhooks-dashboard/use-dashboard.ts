import { useCallback, useEffect, useRef, useState } from 'react';
import { useDashboardInput } from '../use-dashboard-input.js';
import type { Snapshot, WebhooksData } from './data.js';
import { doneMessage, followSelection, initialView, press, type Command, type ViewState } from './model.js';

/** How often the screen asks the daemon again: often enough to watch retries land, cheap for the daemon. */
export const REFRESH_MS = 2_000;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export interface Dashboard {
  snapshot: Snapshot | null;
  view: ViewState;
}

/**
 * Carries the model out: loads the data and polls it every `refreshMs`, turns key presses into state through
 * `press`, runs replays against the data layer and refreshes right after each, so the queued attempt shows up
 * without waiting for the next tick.
 */
export function useDashboard(data: WebhooksData, initial?: Snapshot, refreshMs = REFRESH_MS): Dashboard {
  const [snapshot, setSnapshotState] = useState<Snapshot | null>(initial ?? null);
  const [view, setViewState] = useState<ViewState>(initialView);
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
        const after = await data.load();
        if (before) setView((current) => followSelection(current, before, after));
        // A refresh that works again clears its own earlier failure, never a replay's outcome.
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

  const execute = useCallback(
    async (command: Command) => {
      let status: ViewState['status'];
      try {
        await data.redeliver(command.eventId);
        status = { tone: 'done', text: doneMessage(command) };
      } catch (error) {
        status = { tone: 'error', text: messageOf(error) };
      }
      // A tick's load may be under way from before the replay; wait for it, then load what the replay changed.
      await loading.current;
      await refresh();
      setView((current) => ({ ...current, mode: { kind: 'browse' }, status }));
    },
    [data, refresh, setView],
  );

  useDashboardInput({ snapshotRef, viewRef, press, setView, execute });

  return { snapshot, view };
}
