// Generated from session.Needs by `go test . -run TestWindowTypes -update`: do not edit.
// Each command below the first list leaves out a field its kind needs (Do
// refuses it): the type check fails if the window's Command type lets it.
import type { Command } from './go';

const v = undefined as never;

/** Each kind with every field it needs. */
export const complete: Command[] = [
  { do: 'create' },
  { do: 'demo' },
  { do: 'delete', session: v },
  { do: 'set_model', session: v, model: v },
  { do: 'set_tools', session: v },
  { do: 'send', session: v, text: v },
  { do: 'stop', session: v },
  { do: 'stop_call', session: v, call_id: v },
  { do: 'answer', session: v, call_id: v },
  { do: 'set_stepping', session: v },
  { do: 'set_breakpoints', session: v, breakpoints: v },
  { do: 'step', session: v },
  { do: 'continue', session: v },
  { do: 'edit_request', session: v, request: v },
  { do: 'edit_args', session: v, text: v },
  { do: 'skip', session: v },
  { do: 'edit_result', session: v },
  { do: 'restore_files', session: v, seq: v },
  { do: 'undo_run', session: v, run: v },
  { do: 'compact', session: v },
];

// @ts-expect-error delete needs session
export const delete_without_session: Command = { do: 'delete' };

// @ts-expect-error set_model needs session
export const set_model_without_session: Command = { do: 'set_model', model: v };

// @ts-expect-error set_model needs model
export const set_model_without_model: Command = { do: 'set_model', session: v };

// @ts-expect-error set_tools needs session
export const set_tools_without_session: Command = { do: 'set_tools' };

// @ts-expect-error send needs session
export const send_without_session: Command = { do: 'send', text: v };

// @ts-expect-error send needs text
export const send_without_text: Command = { do: 'send', session: v };

// @ts-expect-error stop needs session
export const stop_without_session: Command = { do: 'stop' };

// @ts-expect-error stop_call needs session
export const stop_call_without_session: Command = { do: 'stop_call', call_id: v };

// @ts-expect-error stop_call needs call_id
export const stop_call_without_call_id: Command = { do: 'stop_call', session: v };

// @ts-expect-error answer needs session
export const answer_without_session: Command = { do: 'answer', call_id: v };

// @ts-expect-error answer needs call_id
export const answer_without_call_id: Command = { do: 'answer', session: v };

// @ts-expect-error set_stepping needs session
export const set_stepping_without_session: Command = { do: 'set_stepping' };

// @ts-expect-error set_breakpoints needs session
export const set_breakpoints_without_session: Command = { do: 'set_breakpoints', breakpoints: v };

// @ts-expect-error set_breakpoints needs breakpoints
export const set_breakpoints_without_breakpoints: Command = { do: 'set_breakpoints', session: v };

// @ts-expect-error step needs session
export const step_without_session: Command = { do: 'step' };

// @ts-expect-error continue needs session
export const continue_without_session: Command = { do: 'continue' };

// @ts-expect-error edit_request needs session
export const edit_request_without_session: Command = { do: 'edit_request', request: v };

// @ts-expect-error edit_request needs request
export const edit_request_without_request: Command = { do: 'edit_request', session: v };

// @ts-expect-error edit_args needs session
export const edit_args_without_session: Command = { do: 'edit_args', text: v };

// @ts-expect-error edit_args needs text
export const edit_args_without_text: Command = { do: 'edit_args', session: v };

// @ts-expect-error skip needs session
export const skip_without_session: Command = { do: 'skip' };

// @ts-expect-error edit_result needs session
export const edit_result_without_session: Command = { do: 'edit_result' };

// @ts-expect-error restore_files needs session
export const restore_files_without_session: Command = { do: 'restore_files', seq: v };

// @ts-expect-error restore_files needs seq
export const restore_files_without_seq: Command = { do: 'restore_files', session: v };

// @ts-expect-error undo_run needs session
export const undo_run_without_session: Command = { do: 'undo_run', run: v };

// @ts-expect-error undo_run needs run
export const undo_run_without_run: Command = { do: 'undo_run', session: v };

// @ts-expect-error compact needs session
export const compact_without_session: Command = { do: 'compact' };
