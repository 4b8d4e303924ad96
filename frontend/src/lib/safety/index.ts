export * from './protections';
export * from './rules';
export * from './approval';
export * from './undo';
export * from './expose';
