import { useCallback, useEffect, useRef, useState } from 'react';
import { useDashboardInput } from '../use-dashboard-input.js';
import type { DashboardData, Snapshot } from './data.js';
import { doneMessage, followSelection, initialView, press, type Command, type ViewState } from './model.js';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export interface Dashboard {
  snapshot: Snapshot | null;
  view: ViewState;
}

/**
 * Carries the model out: loads the data, turns key presses into state through `press`, runs the commands it asks
 * for against the data layer and refreshes after each, success or not (a failed change may still have changed
 * something, or the failure may be that someone else already did).
 */
export function useDashboard(data: DashboardData, initial?: Snapshot): Dashboard {
  const [snapshot, setSnapshotState] = useState<Snapshot | null>(initial ?? null);
  const [view, setViewState] = useState<ViewState>(initialView);
  // Refs as well as state: several keys can arrive in one read from stdin, and each must see the state the one
  // before it left, not the state of the last render.
  const snapshotRef = useRef(snapshot);
  const viewRef = useRef(view);
  const setSnapshot = useCallback((next: Snapshot) => {
    snapshotRef.current = next;
    setSnapshotState(next);
  }, []);
  const setView = useCallback((next: ViewState | ((current: ViewState) => ViewState)) => {
    viewRef.current = typeof next === 'function' ? next(viewRef.current) : next;
    setViewState(viewRef.current);
  }, []);

  const refresh = useCallback(async (): Promise<string | null> => {
    try {
      const before = snapshotRef.current;
      const after = await data.load();
      if (before) setView((current) => followSelection(current, before, after));
      setSnapshot(after);
      return null;
    } catch (error) {
      return `could not load the organization: ${messageOf(error)}`;
    }
  }, [data, setSnapshot, setView]);

  useEffect(() => {
    if (snapshotRef.current) return;
    void refresh().then((failure) => {
      if (failure) setView((current) => ({ ...current, status: { tone: 'error', text: failure } }));
    });
  }, [refresh, setView]);

  const execute = useCallback(
    async (command: Command) => {
      let status: ViewState['status'];
      try {
        if (command.kind === 'update-role') await data.updateMemberRole(command.memberId, command.role);
        else if (command.kind === 'remove-member') await data.removeMember(command.memberId);
        else await data.cancelInvitation(command.invitationId);
        status = { tone: 'done', text: doneMessage(command) };
      } catch (error) {
        status = { tone: 'error', text: messageOf(error) };
      }
      const failure = await refresh();
      if (failure && status.tone === 'done') status = { tone: 'error', text: `${status.text}, but ${failure}` };
      setView((current) => ({ ...current, mode: { kind: 'browse' }, status }));
    },
    [data, refresh, setView],
  );

  useDashboardInput({ snapshotRef, viewRef, press, setView, execute });

  return { snapshot, view };
}
