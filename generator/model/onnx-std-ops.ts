// Op types of the standard ONNX domain (ai.onnx, opsets 1-22) and ai.onnx.ml: a node of one of
// these is not a custom op. Data, not logic; extend when ONNX adds operators.

/** The default domain's (ai.onnx) op types: the names an op of `domain: ''` may take. */
export const AI_ONNX_OPS = new Set(
  `Abs Acos Acosh Add AffineGrid And ArgMax ArgMin Asin Asinh Atan Atanh
AveragePool BatchNormalization Bernoulli BitShift BitwiseAnd BitwiseNot BitwiseOr BitwiseXor BlackmanWindow Cast
CastLike Ceil Celu CenterCropPad Clip Col2Im Compress Concat ConcatFromSequence Constant ConstantOfShape Conv
ConvInteger ConvTranspose Cos Cosh CumSum DFT DeformConv DepthToSpace DequantizeLinear Det Div Dropout
DynamicQuantizeLinear Einsum Elu Equal Erf Exp Expand EyeLike Flatten Floor GRU Gather GatherElements GatherND Gelu
Gemm GlobalAveragePool GlobalLpPool GlobalMaxPool Greater GreaterOrEqual GridSample GroupNormalization HammingWindow
HannWindow HardSigmoid HardSwish Hardmax Identity If ImageDecoder InstanceNormalization IsInf IsNaN LRN LSTM
LayerNormalization LeakyRelu Less LessOrEqual Log LogSoftmax Loop LpNormalization LpPool MatMul MatMulInteger Max
MaxPool MaxRoiPool MaxUnpool Mean MeanVarianceNormalization MelWeightMatrix Min Mish Mod Mul Multinomial Neg
NegativeLogLikelihoodLoss NonMaxSuppression NonZero Not OneHot Optional OptionalGetElement OptionalHasElement Or PRelu
Pad Pow QLinearConv QLinearMatMul QuantizeLinear RNN RandomNormal RandomNormalLike RandomUniform RandomUniformLike
Range Reciprocal ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum
ReduceSumSquare RegexFullMatch Relu Reshape Resize ReverseSequence RoiAlign Round STFT Scan Scatter ScatterElements
ScatterND Selu SequenceAt SequenceConstruct SequenceEmpty SequenceErase SequenceInsert SequenceLength SequenceMap
Shape Shrink Sigmoid Sign Sin Sinh Size Slice Softmax SoftmaxCrossEntropyLoss Softplus Softsign SpaceToDepth Split
SplitToSequence Sqrt Squeeze StringConcat StringNormalizer StringSplit Sub Sum Tan Tanh TfIdfVectorizer
ThresholdedRelu Tile TopK Transpose Trilu Unique Unsqueeze Upsample Where Xor`
    .split(/\s+/)
    .filter(Boolean),
);

export const STANDARD_ONNX_OPS = new Set([
  ...AI_ONNX_OPS,
  ...`ArrayFeatureExtractor Binarizer CastMap CategoryMapper DictVectorizer FeatureVectorizer Imputer LabelEncoder
LinearClassifier LinearRegressor Normalizer OneHotEncoder SVMClassifier SVMRegressor Scaler TreeEnsemble
TreeEnsembleClassifier TreeEnsembleRegressor ZipMap`
    .split(/\s+/)
    .filter(Boolean),
]);

export const STANDARD_DOMAINS = new Set(['', 'ai.onnx', 'ai.onnx.ml', 'ai.onnx.preview.training', 'ai.onnx.training']);

/** The default ONNX domain's two spellings: a spec's `domain: ''` or `domain: ai.onnx` (stored as ''). */
export function defaultDomain(domain: string): boolean {
  return domain === '' || domain === 'ai.onnx';
}
