// The wheel's pyproject.toml (out/pyproject.toml): scikit-build-core over the PyTorch extension's
// CMake, whose install rules (SKBUILD) put the packages and libraries in the wheel. The fixed text
// is generator/static/python/pyproject.toml.tmpl; this prints the project's name, version and
// the build tree kept beside out/.

import type { ProjectIR } from '../../model/ir.js';
import { rootFromOut } from '../../model/ir-helpers.js';
import { defineEmitter, type Emitter, type GeneratedFile, projectFile } from '../emitter.js';
import { tomlString } from '../lang/literals.js';
import { fillTemplate } from '../lang/template.js';

const PYPROJECT = 'generator/static/python/pyproject.toml.tmpl';

export const wheelEmitter: Emitter = defineEmitter({
  name: 'wheel',
  op: () => [],
  project(project: ProjectIR): GeneratedFile[] {
    // build/wheel/<tag> in the project, as build/torch is: relative to out/, wherever gen --out put it.
    const root = rootFromOut(project);
    const buildDir = `${root ? `${root}/` : ''}build/wheel/{wheel_tag}`;
    return [
      projectFile(
        'pyproject.toml',
        fillTemplate(PYPROJECT, {
          package: project.names.torchPackage,
          version: project.version,
          buildDir: tomlString(buildDir),
        }),
        PYPROJECT,
      ),
    ];
  },
});
