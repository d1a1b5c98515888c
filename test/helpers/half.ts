// The one half/bfloat16 codec, shared with `opforge test` (runtime/testing/half.ts).
export { bf16ToNumber, halfToNumber, numberToBf16, numberToHalf } from '../../runtime/testing/half.js';
