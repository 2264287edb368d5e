/**
 * A plain-text table whose cells may hold several lines (one per NIC or disk); columns are padded to
 * their widest line, and a row's lines are printed side by side.
 */
export function formatTable(headers: string[], rows: string[][]): string {
  const cells = [headers, ...rows].map((row) => row.map((cell) => cell.split('\n')));
  const widths = headers.map((_, c) =>
    Math.max(...cells.map((row) => Math.max(...(row[c] ?? ['']).map((l) => l.length)))),
  );
  const lines: string[] = [];
  cells.forEach((row, r) => {
    const height = Math.max(...row.map((cell) => cell.length));
    for (let i = 0; i < height; i++) {
      lines.push(
        row
          .map((cell, c) => (c === row.length - 1 ? (cell[i] ?? '') : (cell[i] ?? '').padEnd(widths[c]!)))
          .join('  ')
          .trimEnd(),
      );
    }
    if (r === 0) lines.push(widths.map((w) => '-'.repeat(w)).join('  '));
  });
  return lines.join('\n');
}
