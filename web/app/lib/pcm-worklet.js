/**
 * An AudioWorklet processor (its own file: worklets load as modules, which the page's CSP allows from dictum
 * only) that turns the microphone's float samples into PCM16 mono at the rate the realtime session takes, in
 * chunks of 100 ms posted to the page. The page asks its AudioContext for that rate, so the browser resamples
 * and this only converts; where the context runs at another rate (browsers that refuse a microphone in a
 * context of another rate), each output sample is the mean of the input samples it covers: a box filter
 * against aliasing, enough for speech.
 */
class Pcm16Writer extends AudioWorkletProcessor {
  constructor(options) {
    super()
    this.rate = options.processorOptions.rate
    this.ratio = sampleRate / this.rate
    this.chunk = new Int16Array(Math.round(this.rate / 10))
    this.filled = 0
    this.sum = 0
    this.count = 0
    this.position = 0
    this.boundary = this.ratio
    this.port.onmessage = (event) => {
      if (event.data === 'flush') {
        this.post()
        this.port.postMessage('flushed')
      }
    }
  }

  push(value) {
    const clamped = Math.max(-1, Math.min(1, value))
    this.chunk[this.filled++] = clamped < 0 ? clamped * 0x8000 : clamped * 0x7fff
    if (this.filled === this.chunk.length) this.post()
  }

  post() {
    if (this.filled === 0) return
    const samples = this.chunk.slice(0, this.filled)
    this.port.postMessage(samples.buffer, [samples.buffer])
    this.filled = 0
  }

  process(inputs) {
    const channels = inputs[0]
    if (!channels || channels.length === 0) return true
    const frames = channels[0].length
    for (let i = 0; i < frames; i++) {
      let value = 0
      for (const channel of channels) value += channel[i]
      value /= channels.length
      if (this.ratio === 1) {
        this.push(value)
        continue
      }
      this.sum += value
      this.count++
      this.position++
      // Upsampling (ratio < 1) repeats the sample; downsampling averages what one output sample covers.
      while (this.position >= this.boundary) {
        this.push(this.sum / this.count)
        this.boundary += this.ratio
        if (this.position < this.boundary) {
          this.sum = 0
          this.count = 0
        }
      }
    }
    return true
  }
}

registerProcessor('pcm16-writer', Pcm16Writer)
