export { problemHandler, notFoundHandler } from './problems';
export { requestId, requestIdWithoutLogContext } from './request-id';
export { healthRouter, createMetricsRegistry, type ReadinessCheck } from './health';
export { listen, closeServer, onShutdown, exitOnFatal } from './server';
export { runService, type RunningService } from './run-service';
export { decodeCursor, encodeCursor, filteredPage, queryLimit, queryText, type Position, type Positioned } from './pagination';
