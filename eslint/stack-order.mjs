// @ts-check
// ferry's folders form a strict stack; each may import only from the folders below it. A relative
// import is resolved against the importing file, so the rule checks where it really points.
import path from 'node:path';

export const STACK = ['src', 'activities', 'workflows', 'worker', 'lab', 'cli', 'bin'];

/** The stack folder a repo-relative path lies in; top-level worker.ts belongs with worker/. */
function layerOf(relative) {
  if (relative === 'worker.ts') return 'worker';
  const top = relative.split(path.sep)[0];
  return STACK.includes(top) ? top : undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
const stackOrder = {
  meta: {
    type: 'problem',
    docs: { description: 'Each folder of the stack imports only from the folders below it.' },
    schema: [
      { type: 'object', properties: { root: { type: 'string' } }, required: ['root'], additionalProperties: false },
    ],
  },
  create(context) {
    const root = context.options[0].root;
    const from = layerOf(path.relative(root, context.filename));
    if (!from) return {}; // tests, benchmarks and scripts may use any layer
    const check = (node, source) => {
      if (!source || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
      const target = path.relative(root, path.resolve(path.dirname(context.filename), source.value));
      const to = layerOf(target);
      if (!to || STACK.indexOf(to) <= STACK.indexOf(from)) return;
      context.report({
        node,
        message: `${from}/ may not import ${to}/ ('${source.value}'): the stack is ${STACK.join(' → ')}, and each folder imports only from those before it. Move the shared part down (messages and their types live in src/domain/messages.ts).`,
      });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, /** @type {any} */ (node.source)),
      // The CLI's commands require their heavy modules when they run (see eslint.config.mjs).
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require')
          check(node, /** @type {any} */ (node.arguments[0]));
      },
    };
  },
};

export default { rules: { 'stack-order': stackOrder } };
