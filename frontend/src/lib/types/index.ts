export * from './json';
export * from './llm';
export * from './events';
export * from './app';
export * from './raw';
export * from './safety';
export * from './ollama';
export * from './search';
