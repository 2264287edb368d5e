/** The report's whole style sheet, inlined: the file needs nothing from the network. */
export const REPORT_CSS = `
:root { color-scheme: light; --ink: #1f2933; --muted: #616e7c; --line: #e4e7eb; --bg: #f5f7fa; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 48px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--ink); background: var(--bg); }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 28px 0 10px; }
.sub { color: var(--muted); margin: 0 0 16px; }
.state { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; vertical-align: middle; background: #d9e2ec; }
.state.completed { background: #c6f7e2; color: #014d40; } .state.running { background: #bae3ff; color: #003e6b; } .state.failed, .state.terminated, .state.timed-out { background: #ffe3e3; color: #610316; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; min-width: 130px; }
.card .value { font-size: 20px; font-weight: 650; }
.card .label { color: var(--muted); font-size: 12px; }
.panel { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px; overflow-x: auto; }
svg { display: block; max-width: 100%; height: auto; font-family: inherit; }
svg text { font-size: 11px; fill: var(--ink); }
svg .tick { fill: var(--muted); font-size: 10px; } svg .clock { fill: #9aa5b1; }
svg .grid { stroke: var(--line); stroke-width: 1; }
svg .stripe { fill: #f8f9fb; }
svg .vm-name { font-weight: 600; font-size: 12px; }
svg .bar-label { fill: #fff; font-size: 10px; pointer-events: none; }
svg .bar.open rect { stroke: #102a43; stroke-dasharray: 3 2; }
svg .vm-tail { font-size: 11px; fill: var(--muted); }
svg .downtime { stroke: #cf1124; stroke-width: 2; }
svg .outcome-migrated, svg .outcome-provisioned { fill: #0c6b58; }
svg .outcome-failed, svg .outcome-rolled-back, svg .outcome-rejected { fill: #ab091e; }
svg .mark.approval { fill: #f0b429; stroke: #8d2b0b; stroke-width: 1; }
svg .mark.decision { fill: #9446ed; stroke: #44056e; stroke-width: 1; }
svg .mark.failure { stroke: #cf1124; stroke-width: 2.5; fill: none; }
svg .line { fill: none; stroke-width: 2.5; } svg .line.vms { stroke: #147d64; } svg .line.bytes { stroke: #8e44ad; stroke-dasharray: 6 3; }
svg .axis-title.vms { fill: #147d64; font-weight: 600; } svg .axis-title.bytes { fill: #8e44ad; font-weight: 600; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 16px; margin: 10px 0 0; font-size: 12px; color: var(--muted); }
.legend span { display: inline-flex; align-items: center; gap: 5px; }
.legend i { display: inline-block; width: 14px; height: 10px; border-radius: 2px; }
.legend i.wait { height: 5px; }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); border-radius: 8px; font-size: 13px; }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #f0f4f8; font-weight: 600; }
td { white-space: nowrap; } td:last-child { white-space: normal; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.none { color: var(--muted); font-style: italic; }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
`;
