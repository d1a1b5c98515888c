// Templates (generator/emit/lang/template.ts) and the Markdown helpers: every slot filled, a slot
// missing from either side refused, spec text escaped so it cannot open markup.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mdTable, mdTemplate, mdText } from '../../generator/emit/lang/markdown.js';
import { block, fillTemplate } from '../../generator/emit/lang/template.js';

const SLOTS = {
  name: 'MyOp',
  version: '3',
  snake: 'my_op',
  description: 'Scales.',
  paddleDynamic: 'my_op_paddle_trt_dynamic_plugin',
  paddleStatic: 'my_op_paddle_trt_plugin',
  fields: '_No attributes._',
  pluginFields: '',
};

test('a template with every slot filled: no marker left, the values in place, no final newline', () => {
  const page = mdTemplate('trt-op-readme.md', SLOTS);
  assert.not.match(page, /\{\{|\}\}/);
  assert.ok(page.startsWith('# MyOp: TensorRT plugins\n\nScales.\n'), page.slice(0, 80));
  assert.match(page, 'registry.get_creator("MyOp", "3", "")');
  assert.match(page, 'fields = trt.PluginFieldCollection([\n])');
  assert.not.ok(page.endsWith('\n'));
});

test('a slot the template has and the values lack, or the other way round, is an error', () => {
  const { fields: _, ...missing } = SLOTS;
  assert.throws(() => mdTemplate('trt-op-readme.md', missing), /no value for \{\{fields\}\}/);
  assert.throws(() => mdTemplate('trt-op-readme.md', { ...SLOTS, extra: 'x' }), /no slot for extra/);
  assert.throws(() => fillTemplate('generator/static/md/no-such-template.md', {}), /ENOENT/);
});

test('a null slot alone on its line takes the line with it; null where the slot shares its line is an error', () => {
  const unit = 'generator/static/cpp/opforge/ort/op.cpp.tmpl';
  const slots = { name: 'MyOp', snake: 'my_op', cudaNote: '', cpu: '  cpu();' };
  assert.match(
    fillTemplate(unit, { ...slots, cuda: '  cuda();' }),
    'void addKernels(Registry& r) {\n  cpu();\n  cuda();\n}\n',
  );
  assert.match(fillTemplate(unit, { ...slots, cuda: null }), 'void addKernels(Registry& r) {\n  cpu();\n}\n');
  assert.throws(() => fillTemplate(unit, { ...slots, cudaNote: null, cuda: null }), /\{\{cudaNote\}\} is null/);
  assert.throws(() => fillTemplate(unit, { ...slots, cuda: null, extra: null }), /no slot for extra/);
  assert.is(block(['a', null, false, 'b']), 'a\nb');
  assert.is(block([null]), null);
});

test('spec text in Markdown: one line, markup characters escaped; tables', () => {
  assert.is(mdText('a*b_c `d` [e] <f> |g| \\h\nnext'), 'a\\*b\\_c \\`d\\` \\[e\\] \\<f\\> \\|g\\| /h next');
  assert.is(mdTable(['A', 'B'], [['1', '2']]), '| A | B |\n|---|---|\n| 1 | 2 |');
});

test.run();
