/**
 * Where a gateway's CPU went, from V8 CPU profiles (`BENCH_CPU_PROF=<dir> npx tsx bench/proxy/run.ts` writes one
 * `.cpuprofile` per gateway process), counted from each process's first request on: the busy time (idle left out) by area (the gateway's own files, Node's HTTP and
 * net internals, ioredis, pino, GC…), the functions with the most self time, and the inclusive time of the gateway's
 * steps. A text flame-graph summary; open a profile in Chrome DevTools or speedscope for the graph itself.
 *
 *   npx tsx bench/proxy/profile-summary.ts <file.cpuprofile> [more files…]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The area a frame belongs to, by its script. */
function area(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (functionName === '(idle)') return '(idle)';
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(program)') return '(program: V8/native outside JS)';
  const gw = /services\/gateway\/src\/(.*)$/.exec(url);
  if (gw) return `gateway ${gw[1]!.replace(/\.ts$/, '')}`;
  const lib = /\/libs\/([^/]+)\//.exec(url);
  if (lib) return `@bda/${lib[1]}`;
  const mod = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (mod) return mod[1]!;
  if (url.startsWith('node:internal/') || url.startsWith('node:')) {
    const name = url.replace(/^node:(internal\/)?/, '');
    if (/^(_http|http)/.test(name)) return 'node http';
    if (/^(net|stream|streams\/|dns)/.test(name)) return 'node net/streams';
    if (/^(timers|process\/task_queues|async_hooks)/.test(name)) return 'node timers/microtasks';
    return `node ${name.split('/')[0]}`;
  }
  if (url === '') return '(native / builtins)';
  return url;
}

function main(): void {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error('npx tsx bench/proxy/profile-summary.ts <file.cpuprofile> [more files…]');
    process.exit(2);
  }
  const selfByArea = new Map<string, number>();
  const selfByFn = new Map<string, number>();
  const inclusiveByFn = new Map<string, number>();
  /** Who called each function (four frames up): for natives such as writev and Node internals such as nextTick. */
  const nativeCallers = new Map<string, Map<string, number>>();
  let busy = 0;
  let idle = 0;
  for (const file of files) {
    const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    // Only the time under load: from the first sample inside the gateway's request handler on (start-up, module
    // loading and compilation left out; a process that never handled a request counts nothing).
    const inHandler = new Set<number>();
    for (const n of p.nodes) {
      for (let cur: number | undefined = n.id; cur !== undefined; cur = parent.get(cur)) {
        if (byId.get(cur)!.callFrame.url.includes('services/gateway/src/proxy/')) {
          inHandler.add(n.id);
          break;
        }
      }
    }
    const first = p.samples.findIndex((id) => inHandler.has(id));
    if (first === -1) continue;
    // Time per sample: the delta to the next sample (V8's own accounting).
    const selfUs = new Map<number, number>();
    for (let i = first; i < p.samples.length; i++) {
      const dt = p.timeDeltas[i + 1] ?? 0;
      selfUs.set(p.samples[i]!, (selfUs.get(p.samples[i]!) ?? 0) + dt);
    }
    for (const [id, us] of selfUs) {
      const node = byId.get(id)!;
      const a = area(node);
      if (a === '(idle)') {
        idle += us;
        continue;
      }
      busy += us;
      selfByArea.set(a, (selfByArea.get(a) ?? 0) + us);
      const fn = `${node.callFrame.functionName || '(anonymous)'} ${a}:${node.callFrame.lineNumber + 1}`;
      selfByFn.set(fn, (selfByFn.get(fn) ?? 0) + us);
      if (!node.callFrame.functionName.startsWith('(')) {
        const chain: string[] = [];
        for (let cur = parent.get(id); cur !== undefined && chain.length < 4; cur = parent.get(cur)) {
          const n = byId.get(cur)!;
          chain.push(`${n.callFrame.functionName || '(anonymous)'} ${area(n)}:${n.callFrame.lineNumber + 1}`);
        }
        const callers = nativeCallers.get(fn) ?? new Map<string, number>();
        nativeCallers.set(fn, callers);
        const c = chain.join(' < ');
        callers.set(c, (callers.get(c) ?? 0) + us);
      }
      // Inclusive time of the gateway's functions: each gateway frame on the stack once.
      const seen = new Set<string>();
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
        const n = byId.get(cur)!;
        if (!n.callFrame.url.includes('services/gateway/src/')) continue;
        const key = `${n.callFrame.functionName || '(anonymous)'} ${area(n)}:${n.callFrame.lineNumber + 1}`;
        if (seen.has(key)) continue;
        seen.add(key);
        inclusiveByFn.set(key, (inclusiveByFn.get(key) ?? 0) + us);
      }
    }
  }
  const pct = (us: number) => `${((us / busy) * 100).toFixed(1).padStart(5)} %`;
  const top = (m: Map<string, number>, n: number) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
  console.log(
    `${files.length} profile(s): busy ${(busy / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s; shares of the busy time\n`,
  );
  console.log('self time by area:');
  for (const [a, us] of top(selfByArea, 25)) console.log(`  ${pct(us)}  ${a}`);
  console.log('\nfunctions with the most self time:');
  for (const [f, us] of top(selfByFn, 30)) console.log(`  ${pct(us)}  ${f}`);
  console.log('\nwho calls the functions with the most self time:');
  for (const [f] of top(selfByFn, 15)) {
    const callers = nativeCallers.get(f);
    if (!callers) continue;
    console.log(`  ${f}`);
    for (const [c, us] of top(callers, 4)) console.log(`    ${pct(us)}  < ${c}`);
  }
  console.log("\nthe gateway's functions, inclusive time (callees included):");
  for (const [f, us] of top(inclusiveByFn, 30)) console.log(`  ${pct(us)}  ${f}`);
}

main();
