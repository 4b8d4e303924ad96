// The session drawn as a timeline: one row per round (run N, round M) with
// the model's time split as Ollama reports it (load, prompt evaluation,
// generation), a bar per tool call (calls in flight together on separate
// sub-lanes), the waits for a person (a question, a pause) and markers for
// what went wrong or was changed. Pure: the layout is numbers in pixels, the
// component only draws them.
//
// Two steps: roundFacts reads each round once (times in ms from the round's
// start, no pixels); layoutOverview places the rounds of a view window in a
// box of pixels, and when the window holds more rounds than fit, adds
// adjacent rounds up into buckets.
//
// One module per job: overview-facts (roundFacts), overview-view (the view
// window), overview-layout (layoutOverview), overview-words (the tooltips).
export * from './overview-facts';
export * from './overview-view';
export * from './overview-layout';
export * from './overview-words';
