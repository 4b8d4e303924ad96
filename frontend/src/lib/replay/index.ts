export { ReplayBridge, REPLAY_MARK, type ReplayCall, type ReplayOptions } from './bridge';
export { parseRecording, sameJson, stepKind, type RecordedCall, type Recording, type Step } from './recording';
export { models, reachableStatus, sandboxedProtections, unconfinedProtections } from './machine';
