#!/usr/bin/python3
"""Writes small random-weight speech models that sherpa-onnx loads like real ones.

Usage: /usr/bin/python3 scripts/make-fixture-models.py OUT_DIR [--only nemo-tdt,zipformer,whisper,streaming-zipformer]

Each model keeps the input/output layout, element types and metadata that sherpa-onnx 1.13 expects from a
real export (NeMo Parakeet TDT transducer, icefall zipformer transducer and streaming zipformer
transducer, OpenAI Whisper), so the engine code
paths are the real ones. The weights are random (fixed seed), so the text is junk, but it is deterministic:
every model gates its output on frame energy (digital silence decodes to nothing) and masks special tokens.

Needs Debian's python3-onnx (apt-get install -y python3-onnx); call /usr/bin/python3.
"""

import argparse
import base64
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
SEED = 20240601

# Word pieces shared by the transducer vocabularies: every letter alone and after the word marker, so any
# alphabetic hotword can be encoded, plus some common English words so the junk text looks like text.
WORDS = (
    'the and of to in is it that was he for on are with as his they be at one have this from or had by word '
    'but what some we can out other were all there when up use your how said an each she which do their time '
    'if will way about many then them write would like so these her long make thing see him two has look more '
    'day could go come did number sound no most people my over know water than call first who may down side '
    'been now find'
).split()
SUFFIXES = 'ing ed er es ly tion th in on an re st en at or ar al'.split()
LETTERS_LOWER = [chr(c) for c in range(ord('a'), ord('z') + 1)]
LETTERS_UPPER = [chr(c) for c in range(ord('A'), ord('Z') + 1)]
MARK = '\u2581'


def bpe_pieces(upper):
    letters = LETTERS_UPPER if upper else LETTERS_LOWER + LETTERS_UPPER
    words = [w.upper() if upper else w for w in WORDS]
    suffixes = [s.upper() if upper else s for s in SUFFIXES]
    pieces = [MARK] + letters + [MARK + c for c in letters] + [MARK + w for w in words] + suffixes
    pieces += ["'", '.', ',', '?', '-']
    seen = set()
    out = []
    for p in pieces:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


def write_model(graph, path, metadata, opset=OPSET):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', opset)], producer_name='dictum-fixture')
    model.ir_version = 8
    for key, value in metadata.items():
        entry = model.metadata_props.add()
        entry.key = key
        entry.value = str(value)
    onnx.checker.check_model(model)
    onnx.save(model, path)


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name=name)


def energy_gate_nodes(prefix, feats, axis, threshold, sharpness):
    """gate = sigmoid(sharpness * (max over `axis` of feats - threshold)), keepdims."""
    return (
        [
            helper.make_node('ReduceMax', [feats], [prefix + 'peak'], axes=[axis], keepdims=1),
            helper.make_node('Sub', [prefix + 'peak', prefix + 'thr'], [prefix + 'centered']),
            helper.make_node('Mul', [prefix + 'centered', prefix + 'sharp'], [prefix + 'scaled']),
            helper.make_node('Sigmoid', [prefix + 'scaled'], [prefix + 'gate']),
        ],
        [const(prefix + 'thr', np.float32(threshold)), const(prefix + 'sharp', np.float32(sharpness))],
        prefix + 'gate',
    )


def gated_logits_nodes(feats, dec, rng, dims, blank_id, masked_ids, num_tokens, extra=None):
    """Joiner core: random token logits scaled by the gate (channel 0 of feats), blank wins on silence.

    feats: (..., 1 + d_enc) with the gate in channel 0; dec: (..., d_dec). Output 'logits' (..., num_tokens [+ extra]).
    """
    d_enc, d_dec = dims
    w_enc = rng.standard_normal((d_enc, num_tokens)).astype(np.float32) * 0.25
    w_dec = rng.standard_normal((d_dec, num_tokens)).astype(np.float32) * 0.25
    mask = np.zeros(num_tokens, dtype=np.float32)
    mask[masked_ids] = -1000.0
    blank_onehot = np.zeros(num_tokens, dtype=np.float32)
    blank_onehot[blank_id] = 1.0
    nodes = [
        helper.make_node('Split', ['feats_in', 'split_sizes'], ['gate', 'content'], axis=-1),
        helper.make_node('MatMul', ['content', 'w_enc'], ['enc_logits']),
        helper.make_node('MatMul', [dec, 'w_dec'], ['dec_logits']),
        helper.make_node('Add', ['enc_logits', 'dec_logits'], ['raw_logits']),
        helper.make_node('Mul', ['raw_logits', 'gate'], ['gated_logits']),
        # blank gets `silence_boost` where the gate is closed and `blank_bias` where speech is
        helper.make_node('Sub', ['one', 'gate'], ['closed']),
        helper.make_node('Mul', ['closed', 'silence_boost'], ['blank_extra']),
        helper.make_node('Add', ['blank_extra', 'blank_bias'], ['blank_score']),
        helper.make_node('Mul', ['blank_score', 'blank_onehot'], ['blank_vec']),
        helper.make_node('Add', ['gated_logits', 'blank_vec'], ['with_blank']),
        helper.make_node('Add', ['with_blank', 'mask'], ['token_logits']),
    ]
    inits = [
        const('split_sizes', np.array([1, d_enc], dtype=np.int64)),
        const('w_enc', w_enc),
        const('w_dec', w_dec),
        const('one', np.float32(1.0)),
        const('silence_boost', np.float32(60.0)),
        const('blank_bias', np.float32(3.0)),
        const('blank_onehot', blank_onehot),
        const('mask', mask),
    ]
    if extra is None:
        nodes.append(helper.make_node('Identity', ['token_logits'], ['logits']))
    else:
        # extra logits (TDT durations) are constant: a zero projection of the content keeps batch shape
        n_extra = len(extra)
        inits += [
            const('w_extra', np.zeros((d_enc, n_extra), dtype=np.float32)),
            const('extra_bias', np.asarray(extra, dtype=np.float32)),
        ]
        nodes += [
            helper.make_node('MatMul', ['content', 'w_extra'], ['extra_zero']),
            helper.make_node('Add', ['extra_zero', 'extra_bias'], ['extra_logits']),
            helper.make_node('Concat', ['token_logits', 'extra_logits'], ['logits'], axis=-1),
        ]
    nodes.insert(0, helper.make_node('Identity', [feats], ['feats_in']))
    return nodes, inits


def subsample_nodes(x, gate, subsampling):
    """Strided conv of the features -> 'content'; max-pooled gate -> 'gate_sub' (same length)."""
    return [
        helper.make_node(
            'Conv', [x, 'w_conv'], ['proj'], kernel_shape=[subsampling], strides=[subsampling],
            pads=[0, subsampling - 1],
        ),
        helper.make_node('Tanh', ['proj'], ['content']),
        helper.make_node(
            'MaxPool', [gate], ['gate_sub'], kernel_shape=[subsampling], strides=[subsampling],
            pads=[0, subsampling - 1],
        ),
    ]


def subsample_inits(w_conv, subsampling):
    return [
        const('w_conv', w_conv),
        const('sub_minus_one', np.int64(subsampling - 1)),
        const('sub', np.int64(subsampling)),
    ]


def write_tokens(path, symbols):
    with open(path, 'w', encoding='utf-8') as f:
        for i, s in enumerate(symbols):
            f.write(f'{s} {i}\n')


def write_bpe_vocab(path, pieces):
    with open(path, 'w', encoding='utf-8') as f:
        for p in pieces:
            f.write(f'{p}\t-1.0\n')


# ---------------------------------------------------------------- NeMo TDT (Parakeet layout)


def nemo_encoder(path, rng, vocab_size, feat_dim, d_enc, layers, pred_hidden, subsampling):
    """(B, feat_dim, T) + int64 length -> (B, 1 + d_enc, T') + int64 length; the gate is channel 0."""
    w_conv = (rng.standard_normal((d_enc, feat_dim, subsampling)) * 0.05).astype(np.float32)
    gate_nodes, gate_inits, gate = energy_gate_nodes('g_', 'audio_signal', 1, threshold=-8.0, sharpness=2.0)
    nodes = gate_nodes + subsample_nodes('audio_signal', gate, subsampling) + [
        helper.make_node('Concat', ['gate_sub', 'content'], ['outputs'], axis=1),
        helper.make_node('Add', ['length', 'sub_minus_one'], ['len_plus']),
        helper.make_node('Div', ['len_plus', 'sub'], ['encoded_lengths']),
    ]
    graph = helper.make_graph(
        nodes, 'encoder',
        [
            helper.make_tensor_value_info('audio_signal', TensorProto.FLOAT, ['B', feat_dim, 'T']),
            helper.make_tensor_value_info('length', TensorProto.INT64, ['B']),
        ],
        [
            helper.make_tensor_value_info('outputs', TensorProto.FLOAT, ['B', 1 + d_enc, 'T_out']),
            helper.make_tensor_value_info('encoded_lengths', TensorProto.INT64, ['B']),
        ],
        gate_inits + subsample_inits(w_conv, subsampling),
    )
    write_model(graph, path, {
        'vocab_size': vocab_size,
        'normalize_type': '',
        'pred_rnn_layers': layers,
        'pred_hidden': pred_hidden,
        'subsampling_factor': subsampling,
        'feat_dim': feat_dim,
        'model_type': 'EncDecRNNTBPEModel',
        'version': '2',
        'model_author': 'dictum test fixture (random weights)',
        'url': 'fixture/parakeet-tdt-like',
        'comment': 'random weights: output is junk, gated on frame energy',
    })


def nemo_decoder(path, rng, n_out, pred_hidden, layers):
    """int32 targets (B,1), int32 length (B), two float states (L,B,H) -> (B,H,1), length, states."""
    embed = (rng.standard_normal((n_out, pred_hidden)) * 0.5).astype(np.float32)
    state = [layers, 'B', pred_hidden]
    nodes = [
        helper.make_node('Gather', ['embed', 'targets'], ['emb'], axis=0),
        helper.make_node('Transpose', ['emb'], ['decoder_output'], perm=[0, 2, 1]),
        helper.make_node('Identity', ['target_length'], ['decoder_output_length']),
        helper.make_node('Identity', ['states.1'], ['states']),
        helper.make_node('Identity', ['onnx::Slice_3'], ['162']),
    ]
    graph = helper.make_graph(
        nodes, 'decoder',
        [
            helper.make_tensor_value_info('targets', TensorProto.INT32, ['B', 1]),
            helper.make_tensor_value_info('target_length', TensorProto.INT32, ['B']),
            helper.make_tensor_value_info('states.1', TensorProto.FLOAT, state),
            helper.make_tensor_value_info('onnx::Slice_3', TensorProto.FLOAT, state),
        ],
        [
            helper.make_tensor_value_info('decoder_output', TensorProto.FLOAT, ['B', pred_hidden, 1]),
            helper.make_tensor_value_info('decoder_output_length', TensorProto.INT32, ['B']),
            helper.make_tensor_value_info('states', TensorProto.FLOAT, state),
            helper.make_tensor_value_info('162', TensorProto.FLOAT, state),
        ],
        [const('embed', embed)],
    )
    write_model(graph, path, {})


def nemo_joiner(path, rng, n_out, d_enc, pred_hidden, durations):
    """(B, 1 + d_enc, 1), (B, H, 1) -> (B, 1, 1, vocab + 1 + durations); blank is the last token."""
    core, core_inits = gated_logits_nodes(
        'enc_t', 'dec_t', rng, (d_enc, pred_hidden), n_out - 1, [0], n_out, extra=durations,
    )
    nodes = [
        helper.make_node('Transpose', ['encoder_outputs'], ['enc_t'], perm=[0, 2, 1]),
        helper.make_node('Transpose', ['decoder_outputs'], ['dec_t'], perm=[0, 2, 1]),
    ] + core + [helper.make_node('Unsqueeze', ['logits', 'axis1'], ['outputs'])]
    graph = helper.make_graph(
        nodes, 'joiner',
        [
            helper.make_tensor_value_info('encoder_outputs', TensorProto.FLOAT, ['B', 1 + d_enc, 1]),
            helper.make_tensor_value_info('decoder_outputs', TensorProto.FLOAT, ['B', pred_hidden, 1]),
        ],
        [helper.make_tensor_value_info('outputs', TensorProto.FLOAT, ['B', 1, 1, n_out + len(durations)])],
        core_inits + [const('axis1', np.array([1], dtype=np.int64))],
    )
    write_model(graph, path, {})


def make_nemo_tdt(out, rng, feat_dim=128, d_enc=32, pred_hidden=24, layers=2, subsampling=8):
    os.makedirs(out, exist_ok=True)
    symbols = ['<unk>'] + bpe_pieces(upper=False)
    vocab_size = len(symbols)  # without blank, as NeMo counts it
    symbols.append('<blk>')
    n_out = vocab_size + 1
    durations = [0.0, 8.0, 0.0, 0.0, 0.0]  # always advance one frame
    nemo_encoder(os.path.join(out, 'encoder.int8.onnx'), rng, vocab_size, feat_dim, d_enc, layers, pred_hidden,
                 subsampling)
    nemo_decoder(os.path.join(out, 'decoder.int8.onnx'), rng, n_out, pred_hidden, layers)
    nemo_joiner(os.path.join(out, 'joiner.int8.onnx'), rng, n_out, d_enc, pred_hidden, durations)
    write_tokens(os.path.join(out, 'tokens.txt'), symbols)
    # Parakeet releases ship no bpe.vocab; dictum derives one from tokens.txt, so the fixture ships none.


# ---------------------------------------------------------------- zipformer transducer (icefall layout)


def zipformer_encoder(path, rng, feat_dim, d_model, subsampling):
    """x (N, T, 80) + x_lens int64 -> (N, T', 1 + D) + int64 lengths; the gate is channel 0."""
    w_conv = (rng.standard_normal((d_model, feat_dim, subsampling)) * 0.05).astype(np.float32)
    gate_nodes, gate_inits, gate = energy_gate_nodes('g_', 'x_t', 1, threshold=-4.0, sharpness=1.0)
    nodes = [helper.make_node('Transpose', ['x'], ['x_t'], perm=[0, 2, 1])] + gate_nodes
    nodes += subsample_nodes('x_t', gate, subsampling) + [
        helper.make_node('Concat', ['gate_sub', 'content'], ['enc_ct'], axis=1),
        helper.make_node('Transpose', ['enc_ct'], ['encoder_out'], perm=[0, 2, 1]),
        helper.make_node('Add', ['x_lens', 'sub_minus_one'], ['len_plus']),
        helper.make_node('Div', ['len_plus', 'sub'], ['encoder_out_lens']),
    ]
    graph = helper.make_graph(
        nodes, 'encoder',
        [
            helper.make_tensor_value_info('x', TensorProto.FLOAT, ['N', 'T', feat_dim]),
            helper.make_tensor_value_info('x_lens', TensorProto.INT64, ['N']),
        ],
        [
            helper.make_tensor_value_info('encoder_out', TensorProto.FLOAT, ['N', 'T_out', 1 + d_model]),
            helper.make_tensor_value_info('encoder_out_lens', TensorProto.INT64, ['N']),
        ],
        gate_inits + subsample_inits(w_conv, subsampling),
    )
    write_model(graph, path, {
        'model_type': 'zipformer2',
        'version': '1',
        'model_author': 'dictum test fixture (random weights)',
        'comment': 'random weights: output is junk, gated on frame energy',
    })


def zipformer_decoder(path, rng, vocab, d_model, context_size):
    """y int64 (N, context) -> (N, D); id -1 (the initial context) gathers the last row."""
    embed = (rng.standard_normal((vocab, d_model)) * 0.5).astype(np.float32)
    nodes = [
        helper.make_node('Gather', ['embed', 'y'], ['emb'], axis=0),
        helper.make_node('ReduceMean', ['emb'], ['decoder_out'], axes=[1], keepdims=0),
    ]
    graph = helper.make_graph(
        nodes, 'decoder',
        [helper.make_tensor_value_info('y', TensorProto.INT64, ['N', context_size])],
        [helper.make_tensor_value_info('decoder_out', TensorProto.FLOAT, ['N', d_model])],
        [const('embed', embed)],
    )
    write_model(graph, path, {'vocab_size': vocab, 'context_size': context_size})


def zipformer_joiner(path, rng, vocab, d_model):
    """(N, 1 + D), (N, D) -> (N, vocab); blank is 0, <sos/eos> and <unk> masked."""
    core, core_inits = gated_logits_nodes('encoder_out', 'decoder_out', rng, (d_model, d_model), 0, [1, 2], vocab)
    graph = helper.make_graph(
        core + [helper.make_node('Identity', ['logits'], ['logit'])], 'joiner',
        [
            helper.make_tensor_value_info('encoder_out', TensorProto.FLOAT, ['N', 1 + d_model]),
            helper.make_tensor_value_info('decoder_out', TensorProto.FLOAT, ['N', d_model]),
        ],
        [helper.make_tensor_value_info('logit', TensorProto.FLOAT, ['N', vocab])],
        core_inits,
    )
    write_model(graph, path, {})


def make_zipformer(out, rng, feat_dim=80, d_model=32, context_size=2, subsampling=4):
    os.makedirs(out, exist_ok=True)
    specials = ['<blk>', '<sos/eos>', '<unk>']
    pieces = bpe_pieces(upper=True)
    vocab = len(specials) + len(pieces)
    zipformer_encoder(os.path.join(out, 'encoder-epoch-99-avg-1.int8.onnx'), rng, feat_dim, d_model, subsampling)
    zipformer_decoder(os.path.join(out, 'decoder-epoch-99-avg-1.onnx'), rng, vocab, d_model, context_size)
    zipformer_joiner(os.path.join(out, 'joiner-epoch-99-avg-1.int8.onnx'), rng, vocab, d_model)
    write_tokens(os.path.join(out, 'tokens.txt'), specials + pieces)
    # icefall exports ship bpe.vocab beside bpe.model
    write_bpe_vocab(os.path.join(out, 'bpe.vocab'), specials + pieces)


# ---------------------------------------------------------------- streaming zipformer transducer (icefall layout)

# One encoder stack of one layer, tiny dimensions: the state tensors have the real names, order and shapes
# (sherpa-onnx's OnlineZipformer2TransducerModel builds them from the metadata), and pass through unchanged.
STREAMING = {
    'encoder_dims': [8],
    'num_encoder_layers': [1],
    'query_head_dims': [4],
    'value_head_dims': [4],
    'num_heads': [2],
    'cnn_module_kernels': [3],
    'left_context_len': [16],
    'decode_chunk_len': 32,
    'T': 45,
}


def streaming_state_inputs(feat_dim):
    """(name, element type, shape) of each encoder state, in the order sherpa-onnx passes them."""
    states = []
    layer = 0
    for stack, layers in enumerate(STREAMING['num_encoder_layers']):
        dim = STREAMING['encoder_dims'][stack]
        left = STREAMING['left_context_len'][stack]
        heads = STREAMING['num_heads'][stack]
        key_dim = STREAMING['query_head_dims'][stack] * heads
        value_dim = STREAMING['value_head_dims'][stack] * heads
        half_kernel = STREAMING['cnn_module_kernels'][stack] // 2
        for _ in range(layers):
            states += [
                (f'cached_key_{layer}', TensorProto.FLOAT, [left, 'N', key_dim]),
                (f'cached_nonlin_attn_{layer}', TensorProto.FLOAT, [1, 'N', left, 3 * dim // 4]),
                (f'cached_val1_{layer}', TensorProto.FLOAT, [left, 'N', value_dim]),
                (f'cached_val2_{layer}', TensorProto.FLOAT, [left, 'N', value_dim]),
                (f'cached_conv1_{layer}', TensorProto.FLOAT, ['N', dim, half_kernel]),
                (f'cached_conv2_{layer}', TensorProto.FLOAT, ['N', dim, half_kernel]),
            ]
            layer += 1
    embed_dim = (((feat_dim - 1) // 2) - 1) // 2
    states.append(('embed_states', TensorProto.FLOAT, ['N', 128, 3, embed_dim]))
    states.append(('processed_lens', TensorProto.INT64, ['N']))
    return states


def streaming_zipformer_encoder(path, rng, feat_dim, d_model, subsampling):
    """x (N, T, 80) + states -> encoder_out (N, chunk / 4, 1 + D) + new states; the gate is channel 0.

    Like the offline fixture encoder, on the chunk's first decode_chunk_len frames (the rest is the right
    context a real model looks ahead into).
    """
    chunk = STREAMING['decode_chunk_len']
    w_conv = (rng.standard_normal((d_model, feat_dim, subsampling)) * 0.05).astype(np.float32)
    gate_nodes, gate_inits, gate = energy_gate_nodes('g_', 'x_t', 1, threshold=-4.0, sharpness=1.0)
    nodes = [
        helper.make_node('Slice', ['x', 'chunk_start', 'chunk_end', 'chunk_axis'], ['x_chunk']),
        helper.make_node('Transpose', ['x_chunk'], ['x_t'], perm=[0, 2, 1]),
    ] + gate_nodes
    nodes += subsample_nodes('x_t', gate, subsampling) + [
        helper.make_node('Concat', ['gate_sub', 'content'], ['enc_ct'], axis=1),
        helper.make_node('Transpose', ['enc_ct'], ['encoder_out'], perm=[0, 2, 1]),
    ]
    states = streaming_state_inputs(feat_dim)
    for name, _, _ in states[:-1]:
        nodes.append(helper.make_node('Identity', [name], ['new_' + name]))
    nodes.append(helper.make_node('Add', ['processed_lens', 'chunk_len'], ['new_processed_lens']))
    inits = gate_inits + subsample_inits(w_conv, subsampling) + [
        const('chunk_start', np.array([0], dtype=np.int64)),
        const('chunk_end', np.array([chunk], dtype=np.int64)),
        const('chunk_axis', np.array([1], dtype=np.int64)),
        const('chunk_len', np.array([chunk], dtype=np.int64)),
    ]
    graph = helper.make_graph(
        nodes, 'encoder',
        [helper.make_tensor_value_info('x', TensorProto.FLOAT, ['N', STREAMING['T'], feat_dim])]
        + [helper.make_tensor_value_info(name, kind, shape) for name, kind, shape in states],
        [helper.make_tensor_value_info('encoder_out', TensorProto.FLOAT, ['N', chunk // subsampling, 1 + d_model])]
        + [helper.make_tensor_value_info('new_' + name, kind, shape) for name, kind, shape in states],
        inits,
    )
    as_list = lambda values: ','.join(str(v) for v in values)  # noqa: E731
    write_model(graph, path, {
        'model_type': 'zipformer2',
        'version': '1',
        'model_author': 'dictum test fixture (random weights)',
        'comment': 'streaming zipformer layout, random weights: output is junk, gated on frame energy',
        'decode_chunk_len': chunk,
        'T': STREAMING['T'],
        **{key: as_list(STREAMING[key]) for key in (
            'num_encoder_layers', 'encoder_dims', 'cnn_module_kernels', 'left_context_len', 'query_head_dims',
            'value_head_dims', 'num_heads')},
    })


def make_streaming_zipformer(out, rng, feat_dim=80, d_model=32, context_size=2, subsampling=4):
    os.makedirs(out, exist_ok=True)
    specials = ['<blk>', '<sos/eos>', '<unk>']
    pieces = bpe_pieces(upper=True)
    vocab = len(specials) + len(pieces)
    name = 'epoch-99-avg-1-chunk-16-left-128'
    streaming_zipformer_encoder(os.path.join(out, f'encoder-{name}.int8.onnx'), rng, feat_dim, d_model,
                                subsampling)
    zipformer_decoder(os.path.join(out, f'decoder-{name}.onnx'), rng, vocab, d_model, context_size)
    zipformer_joiner(os.path.join(out, f'joiner-{name}.int8.onnx'), rng, vocab, d_model)
    write_tokens(os.path.join(out, 'tokens.txt'), specials + pieces)
    write_bpe_vocab(os.path.join(out, 'bpe.vocab'), specials + pieces)


# ---------------------------------------------------------------- Whisper (sherpa-onnx export layout)


WHISPER_LANGUAGES = ['en', 'de', 'es']


def whisper_vocab():
    """Text tokens (GPT-2 style, leading space), then the special tokens; returns (texts, specials, ids)."""
    texts = [' ' + w for w in WORDS] + ['s', 'ing', 'ed', '.', ',']
    specials = ['<|endoftext|>', '<|startoftranscript|>'] + [f'<|{c}|>' for c in WHISPER_LANGUAGES]
    specials += ['<|translate|>', '<|transcribe|>', '<|nospeech|>', '<|notimestamps|>']
    ids = {s: len(texts) + i for i, s in enumerate(specials)}
    return texts, specials, ids


def whisper_metadata(ids, n_vocab, n_mels, n_state, n_layer, n_text_ctx):
    lang_tokens = [ids[f'<|{c}|>'] for c in WHISPER_LANGUAGES]
    sot_sequence = [ids['<|startoftranscript|>'], lang_tokens[0], ids['<|transcribe|>']]
    return {
        'model_type': 'whisper-tiny',
        'comment': 'dictum test fixture (random weights), gated on frame energy',
        'version': '1',
        'maintainer': 'dictum',
        'n_mels': n_mels,
        'n_audio_ctx': 1500,
        'n_audio_state': n_state,
        'n_audio_head': 1,
        'n_audio_layer': n_layer,
        'n_vocab': n_vocab,
        'n_text_ctx': n_text_ctx,
        'n_text_state': n_state,
        'n_text_head': 1,
        'n_text_layer': n_layer,
        'sot_sequence': ','.join(str(i) for i in sot_sequence),
        'all_language_tokens': ','.join(str(i) for i in lang_tokens),
        'all_language_codes': ','.join(WHISPER_LANGUAGES),
        'sot': ids['<|startoftranscript|>'],
        'sot_index': 0,
        'eot': ids['<|endoftext|>'],
        'blank_id': 0,
        'is_multilingual': 1,
        'no_speech': ids['<|nospeech|>'],
        'non_speech_tokens': '',
        'transcribe': ids['<|transcribe|>'],
        'translate': ids['<|translate|>'],
        'sot_prev': ids['<|nospeech|>'],
        'sot_lm': ids['<|nospeech|>'],
        'no_timestamps': ids['<|notimestamps|>'],
    }


def whisper_encoder(path, rng, metadata, n_mels, n_state, n_layer):
    """mel (1, n_mels, T) -> cross k/v (L, 1, T, S); k carries the per-frame energy gate everywhere."""
    gate_nodes, gate_inits, gate = energy_gate_nodes('g_', 'mel', 1, threshold=0.5, sharpness=10.0)
    w_v = (rng.standard_normal((n_mels, n_state)) * 0.1).astype(np.float32)
    nodes = gate_nodes + [
        helper.make_node('Transpose', [gate], ['gate_t'], perm=[0, 2, 1]),  # (1, T, 1)
        helper.make_node('Transpose', ['mel'], ['mel_t'], perm=[0, 2, 1]),  # (1, T, n_mels)
        helper.make_node('MatMul', ['mel_t', 'w_v'], ['v_one']),  # (1, T, S)
        helper.make_node('Mul', ['gate_t', 'ones_s'], ['k_one']),  # (1, T, S)
        helper.make_node('Unsqueeze', ['k_one', 'axis0'], ['k_u']),
        helper.make_node('Unsqueeze', ['v_one', 'axis0'], ['v_u']),
        helper.make_node('Tile', ['k_u', 'layer_reps'], ['n_layer_cross_k']),
        helper.make_node('Tile', ['v_u', 'layer_reps'], ['n_layer_cross_v']),
    ]
    inits = gate_inits + [
        const('w_v', w_v),
        const('ones_s', np.ones((n_state,), dtype=np.float32)),
        const('axis0', np.array([0], dtype=np.int64)),
        const('layer_reps', np.array([n_layer, 1, 1, 1], dtype=np.int64)),
    ]
    cross = [n_layer, 1, 'T', n_state]
    graph = helper.make_graph(
        nodes, 'encoder',
        [helper.make_tensor_value_info('mel', TensorProto.FLOAT, [1, n_mels, 'T'])],
        [
            helper.make_tensor_value_info('n_layer_cross_k', TensorProto.FLOAT, cross),
            helper.make_tensor_value_info('n_layer_cross_v', TensorProto.FLOAT, cross),
        ],
        inits,
    )
    write_model(graph, path, metadata)


def whisper_decoder_nodes():
    """logits = gate * random(token) + masked specials; eot wins on silence and after `max_offset`."""
    return [
        helper.make_node('ReduceMax', ['n_layer_cross_k'], ['gate'], keepdims=0),
        helper.make_node('Gather', ['embed', 'tokens'], ['emb'], axis=0),  # (1, n, S)
        helper.make_node('MatMul', ['emb', 'w_out'], ['raw']),  # (1, n, V)
        helper.make_node('Mul', ['raw', 'gate'], ['gated']),
        helper.make_node('Sub', ['one', 'gate'], ['closed']),
        helper.make_node('Mul', ['closed', 'silence_boost'], ['eot_silence']),
        helper.make_node('Cast', ['offset'], ['offset_f'], to=TensorProto.FLOAT),
        helper.make_node('Sub', ['offset_f', 'max_offset'], ['over']),
        helper.make_node('Relu', ['over'], ['over_pos']),
        helper.make_node('Mul', ['over_pos', 'silence_boost'], ['eot_late']),
        helper.make_node('Add', ['eot_silence', 'eot_late'], ['eot_score']),
        helper.make_node('Mul', ['eot_score', 'eot_onehot'], ['eot_vec']),
        helper.make_node('Add', ['gated', 'eot_vec'], ['with_eot']),
        helper.make_node('Add', ['with_eot', 'mask'], ['logits']),
        helper.make_node('Identity', ['in_n_layer_self_k_cache'], ['out_n_layer_self_k_cache']),
        helper.make_node('Identity', ['in_n_layer_self_v_cache'], ['out_n_layer_self_v_cache']),
    ]


def whisper_decoder(path, rng, n_text, eot, n_vocab, n_state, n_layer, n_text_ctx, max_tokens):
    embed = (rng.standard_normal((n_vocab, n_state)) * 0.5).astype(np.float32)
    w_out = (rng.standard_normal((n_state, n_vocab)) * 1.5).astype(np.float32)
    mask = np.zeros(n_vocab, dtype=np.float32)
    mask[n_text:] = -1000.0
    mask[eot] = 0.0
    eot_onehot = np.zeros(n_vocab, dtype=np.float32)
    eot_onehot[eot] = 1.0
    inits = [
        const('embed', embed),
        const('w_out', w_out),
        const('one', np.float32(1.0)),
        const('silence_boost', np.float32(60.0)),
        const('max_offset', np.float32(3 + max_tokens)),
        const('eot_onehot', eot_onehot),
        const('mask', mask),
    ]
    self_shape = [n_layer, 1, n_text_ctx, n_state]
    cross = [n_layer, 1, 'T', n_state]
    graph = helper.make_graph(
        whisper_decoder_nodes(), 'decoder',
        [
            helper.make_tensor_value_info('tokens', TensorProto.INT64, [1, 'n_tokens']),
            helper.make_tensor_value_info('in_n_layer_self_k_cache', TensorProto.FLOAT, self_shape),
            helper.make_tensor_value_info('in_n_layer_self_v_cache', TensorProto.FLOAT, self_shape),
            helper.make_tensor_value_info('n_layer_cross_k', TensorProto.FLOAT, cross),
            helper.make_tensor_value_info('n_layer_cross_v', TensorProto.FLOAT, cross),
            helper.make_tensor_value_info('offset', TensorProto.INT64, [1]),
        ],
        [
            helper.make_tensor_value_info('logits', TensorProto.FLOAT, [1, 'n_tokens', n_vocab]),
            helper.make_tensor_value_info('out_n_layer_self_k_cache', TensorProto.FLOAT, self_shape),
            helper.make_tensor_value_info('out_n_layer_self_v_cache', TensorProto.FLOAT, self_shape),
        ],
        inits,
    )
    write_model(graph, path, {})


def make_whisper(out, rng, n_mels=80, n_state=16, n_layer=2, n_text_ctx=64, max_tokens=8):
    os.makedirs(out, exist_ok=True)
    texts, specials, ids = whisper_vocab()
    n_vocab = len(texts) + len(specials)
    metadata = whisper_metadata(ids, n_vocab, n_mels, n_state, n_layer, n_text_ctx)
    whisper_encoder(os.path.join(out, 'tiny-encoder.int8.onnx'), rng, metadata, n_mels, n_state, n_layer)
    whisper_decoder(os.path.join(out, 'tiny-decoder.int8.onnx'), rng, len(texts), ids['<|endoftext|>'], n_vocab,
                    n_state, n_layer, n_text_ctx, max_tokens)
    # sherpa-onnx reads Whisper tokens base64-encoded
    with open(os.path.join(out, 'tiny-tokens.txt'), 'w', encoding='ascii') as f:
        for i, s in enumerate(texts + specials):
            f.write(base64.b64encode(s.encode('utf-8')).decode('ascii') + f' {i}\n')


MAKERS = {
    'nemo-tdt': make_nemo_tdt,
    'zipformer': make_zipformer,
    'whisper': make_whisper,
    'streaming-zipformer': make_streaming_zipformer,
}


def main():
    parser = argparse.ArgumentParser(description='Write random-weight sherpa-onnx fixture models.')
    parser.add_argument('out_dir')
    parser.add_argument('--only', default=','.join(MAKERS), help='comma-separated: ' + ', '.join(MAKERS))
    args = parser.parse_args()
    names = [n for n in args.only.split(',') if n]
    unknown = [n for n in names if n not in MAKERS]
    if unknown:
        sys.exit(f'unknown fixture(s): {", ".join(unknown)}')
    for i, name in enumerate(names):
        MAKERS[name](os.path.join(args.out_dir, name), np.random.default_rng(SEED + i))
        print(os.path.join(args.out_dir, name))


if __name__ == '__main__':
    main()
