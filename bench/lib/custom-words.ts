/** The 20 custom words the dictum benchmark server stores (and the direct sherpa-onnx run turns into hotwords). */
export const BENCH_CUSTOM_WORDS = Array.from({ length: 20 }, (_, i) => ({
  text: `Word${i}`,
  weight: i + 1,
  aliases: [`word ${i}`],
}))
