/** One parsed script instruction: a data push (OP_0 … OP_PUSHDATA4) or any other opcode. */
export type ScriptInstruction = { push: Uint8Array } | { opcode: number };

const OP_PUSHDATA1 = 0x4c;
const OP_PUSHDATA2 = 0x4d;
const OP_PUSHDATA4 = 0x4e;

/**
 * Walks `script` from `start` the way rust-bitcoin's non-minimal `Script::instructions` does:
 * opcodes 0x00–0x4b push that many bytes, OP_PUSHDATA1/2/4 read a 1/2/4-byte little-endian
 * length first, everything else is a plain opcode. Yields `'truncated'` once and stops when a
 * push (or its length) runs past the end of the script.
 */
export function* scriptInstructions(script: Uint8Array, start = 0): Generator<ScriptInstruction | 'truncated'> {
  let i = start;
  while (i < script.length) {
    const opcode = script[i++]!;
    let length: number;
    if (opcode < OP_PUSHDATA1) {
      length = opcode;
    } else if (opcode <= OP_PUSHDATA4) {
      const size = opcode === OP_PUSHDATA1 ? 1 : opcode === OP_PUSHDATA2 ? 2 : 4;
      if (i + size > script.length) {
        yield 'truncated';
        return;
      }
      length = 0;
      for (let b = size - 1; b >= 0; b--) length = length * 256 + script[i + b]!;
      i += size;
    } else {
      yield { opcode };
      continue;
    }
    if (i + length > script.length) {
      yield 'truncated';
      return;
    }
    yield { push: script.subarray(i, i + length) };
    i += length;
  }
}
