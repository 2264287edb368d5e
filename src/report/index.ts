export * from './model';
export { readHistory, joinRuns, type JsonHistory, type WorkflowTimeline } from './history';
export { buildReport, type ReportInput } from './build-report';
export { renderHtml } from './render-html';
export { renderMarkdown } from './render-markdown';
