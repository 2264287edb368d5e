import { withoutSourcesContent } from '../../worker/workflow-bundle';

const PREFIX = '\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,';
const inline = (map: object) => PREFIX + Buffer.from(JSON.stringify(map)).toString('base64');
const mapOf = (code: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(code.slice(code.lastIndexOf(PREFIX) + PREFIX.length), 'base64').toString('utf8')) as Record<
    string,
    unknown
  >;

describe("the workflow bundle's source map without the sources' text", () => {
  const code = 'var a = 1;\n//# sourceMappingURL=luxon.mjs.map\nvar b = a + 1;';
  const map = {
    version: 3,
    file: 'main.js',
    mappings: 'AAAA;AACA',
    sources: ['webpack://a.ts', 'webpack://b.ts'],
    sourcesContent: ['const a = 1;', 'const b = a + 1;'],
    names: ['a', 'b'],
  };

  it('drops sourcesContent and keeps the code, file names, mappings and names as they were', () => {
    const stripped = withoutSourcesContent(code + inline(map));
    expect(stripped.startsWith(code + PREFIX)).toBe(true);
    const { sourcesContent, ...rest } = map;
    expect(sourcesContent).toHaveLength(2);
    expect(mapOf(stripped)).toEqual(rest);
    expect(stripped.length).toBeLessThan((code + inline(map)).length);
  });

  it('leaves a bundle without an inline map, or whose map has no sources, unchanged', () => {
    expect(withoutSourcesContent(code)).toBe(code);
    const { sourcesContent: _dropped, ...bare } = map;
    expect(withoutSourcesContent(code + inline(bare))).toBe(code + inline(bare));
  });
});
