// What every backend can hold: attribute values travel in 32-bit TensorRT fields and Paddle int
// attributes, the op core stores floats as float32, and shapes have at most kMaxRank dims
// (opforge/core.h). The spec checks and every Python binding's argument checks read these.

export const INT32_MAX = 2 ** 31 - 1;
export const FLOAT32_MAX = 3.4028234663852886e38;
/** Characters of a string attribute. */
export const MAX_STRING = 4096;
/** Elements of a list attribute. */
export const MAX_LIST = 1024;
/** Dims of a tensor (kMaxRank in opforge/core.h). */
export const MAX_RANK = 8;
/** Members of a variadic input in one call (kMaxMembers in opforge/core.h). */
export const MAX_MEMBERS = 32;
/** A variadic output's `max_count` when the spec gives none: the outputs every backend reserves for it. */
export const DEFAULT_MAX_OUTPUT_MEMBERS = 8;
