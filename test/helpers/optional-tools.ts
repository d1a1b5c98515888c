// Tests that need a system tool the README lists as optional (clang with libFuzzer, ccache, nvcc).
// Where the tool is missing such a test is skipped and says which tool and the command that
// installs it, so `npm test` passes on a machine with only the required tools. With
// OPFORGE_REQUIRE_TOOLS=1 (CI, which installs them all) the same test fails with the same message
// instead: there a skip would hide a check that stopped running.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';

/** OPFORGE_REQUIRE_TOOLS=1: a missing optional tool fails its tests (and run-suite.ts's checks). */
export const REQUIRE_TOOLS = process.env.OPFORGE_REQUIRE_TOOLS === '1';

export interface OptionalTool {
  /** What is missing, as the skip names it. */
  name: string;
  /** The command that installs it (Debian, as CI's machine). */
  install: string;
  /** Asked once, on first use: undefined when the tool works, else why not. */
  problem: () => string | undefined;
}

function runs(cmd: string, args: string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}

function once(probe: () => string | undefined): () => string | undefined {
  let asked = false;
  let answer: string | undefined;
  return () => {
    if (!asked) [asked, answer] = [true, probe()];
    return answer;
  };
}

/** clang++ that links `-fsanitize=fuzzer` (Debian ships libFuzzer's runtime apart from clang). */
export const CLANG_LIBFUZZER: OptionalTool = {
  name: 'clang++ with libFuzzer',
  install: 'apt-get install clang libclang-rt-14-dev',
  problem: once(() => {
    if (!runs('clang++', ['--version'])) return 'clang++ is not installed';
    const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-libfuzzer-'));
    try {
      const src = path.join(dir, 'probe.cpp');
      writeFileSync(
        src,
        '#include <cstddef>\n#include <cstdint>\nextern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }\n',
      );
      return runs('clang++', ['-fsanitize=fuzzer', src, '-o', path.join(dir, 'probe')])
        ? undefined
        : 'clang++ cannot link -fsanitize=fuzzer (no libFuzzer runtime)';
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }),
};

export const CCACHE: OptionalTool = {
  name: 'ccache',
  install: 'apt-get install ccache',
  problem: once(() => (runs('ccache', ['--version']) ? undefined : 'ccache is not installed')),
};

/** nvcc, compile only (no GPU needed). */
export const NVCC: OptionalTool = {
  name: 'nvcc',
  install: "apt-get install cuda-toolkit (NVIDIA's CUDA apt repository), with /usr/local/cuda/bin on PATH",
  problem: once(() => (runs('nvcc', ['--version']) ? undefined : 'nvcc is not installed')),
};

/** The CUDA toolkit's include folder, as the nvcc on PATH reports it (NVCC must be available). */
export function cudaIncludeDir(): string {
  // nvcc may be a wrapper script (CI's /usr/local/bin/nvcc), so its own dry run names the folder.
  const r = spawnSync('nvcc', ['--dryrun', '-x', 'cu', '-c', '/dev/null', '-o', '/dev/null'], { encoding: 'utf8' });
  const m = /^#\$ INCLUDES="-I([^"]+?)"/m.exec(`${r.stdout}${r.stderr}`);
  if (!m) throw new Error(`nvcc --dryrun names no include folder:\n${r.stderr}`);
  return m[1]!.trim();
}

/** Why `tools` cannot be used, with each missing tool's install command; undefined when all work. */
export function missingTools(tools: readonly OptionalTool[]): string | undefined {
  const missing = tools.flatMap((t) => {
    const p = t.problem();
    return p === undefined ? [] : [`${p}: ${t.install}`];
  });
  return missing.length ? missing.join('; ') : undefined;
}

/** `test`, or, given a reason, a skipped test that says why (`skipped (<reason>): <name>`). */
export function testUnless(reason: string | undefined, name: string, fn: Parameters<typeof test>[1]): void {
  if (reason === undefined) {
    test(name, fn);
    return;
  }
  process.stdout.write(`skipped (${reason}): ${name}\n`);
  test.skip(name, fn);
}

/**
 * `test`, where every tool of `tools` works; else skipped with the missing tools and their install
 * commands, or, with OPFORGE_REQUIRE_TOOLS=1, failed with that message. `unless` (a reason) skips
 * it whatever the tools, as testUnless does.
 */
export function testNeeding(
  tools: readonly OptionalTool[],
  name: string,
  fn: Parameters<typeof test>[1],
  unless?: string,
): void {
  const missing = unless === undefined ? missingTools(tools) : undefined;
  if (unless !== undefined || missing === undefined || !REQUIRE_TOOLS) {
    testUnless(unless ?? missing, name, fn);
    return;
  }
  test(name, () => {
    throw new Error(`required with OPFORGE_REQUIRE_TOOLS=1: ${missing}`);
  });
}
