/** Builds the dashboard bundle in memory: file name (dashboard.js, dashboard.css) -> text. */
export function bundleDashboard(): Promise<Record<string, string>>;
