export * from './json';
export * from './go';
export * from './events';
export * from './app';
export * from './raw';
export * from './safety';
export * from './ollama';
export * from './search';
export * from './compare';
// The search results with their lists filled in, over go.ts' wire types of the same names.
export type { SearchResults, SessionHits } from './search';
// The comparison with its lists filled in, over go.ts' wire types of the same names.
export type { Comparison, RoundFigures } from './compare';
