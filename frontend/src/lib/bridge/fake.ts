// An in-memory Bridge for tests and for the demo that runs when the page
// is opened outside a Wails window. It keeps sessions, events and approvals
// like the backend does and records every command it was given.
//
// It is built in layers, one job a file: fakestore.ts keeps sessions,
// events, approvals and settings and drives the event side; fakesafety.ts
// answers approvals, keeps workspaces and restores files; fakestep.ts
// pauses fake runs and takes the user's edits. fakeloop.ts scripts runs.
import type { Bridge } from './types';
import { FakeStepping } from './fakestep';

export { defaultSettings, makeSummary, type FakeCall, type FakeOptions } from './fakestore';
export { answeredBy, grantCovers, grantFor, sandboxedProtections, unconfinedProtections, type FakeWorkspace } from './fakesafety';
export { checkBuiltinArgs, type Resume } from './fakestep';

/** The fake backend: every layer together, behind the Bridge interface. */
export class FakeBridge extends FakeStepping implements Bridge {}
