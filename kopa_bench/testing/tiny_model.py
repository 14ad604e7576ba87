"""A tiny random causal LM with a real chat template, for fast offline tests.

:func:`build_tiny_model` writes a folder that ``AutoModelForCausalLM.from_pretrained`` and
``AutoTokenizer.from_pretrained`` load like any checkpoint:

* model: Qwen2 (or Qwen3) architecture, hidden 64, 2 layers, random init from a fixed seed;
  ``arch="qwen3_5"`` gives the Qwen3.5 text architecture instead (hybrid Gated-DeltaNet linear
  attention + full attention layers, 3:1 like the real checkpoints) with the real Qwen3.5 chat
  template, so the GPU recipes can be exercised on CPU (see :func:`build_tiny_model`);
* tokenizer: byte-level BPE trained here with ``tokenizers`` on a small built-in corpus
  (Korean + JSON + English), vocab ~2-3k, with Qwen's special tokens;
* chat template: Qwen2.5-style Jinja that renders ``tools`` in the system message, assistant
  ``tool_calls`` as ``<tool_call>`` JSON and ``tool`` messages as ``<tool_response>``, with
  ``{% generation %}`` markers so ``return_assistant_tokens_mask`` (assistant-only loss) works.

It never touches the network and takes about a second. The output is random text, so tests use it
for shapes, determinism and plumbing, not for behaviour.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

logger = logging.getLogger(__name__)

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
# Non-special like in Qwen: they must survive decode(skip_special_tokens=True) so calls stay parseable.
TAG_TOKENS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>"]

DEFAULT_SYSTEM = "You are a helpful assistant."

CHAT_TEMPLATE = r"""{%- if messages and messages[0]['role'] == 'system' -%}
    {%- set system_message = messages[0]['content'] -%}
    {%- set loop_messages = messages[1:] -%}
{%- else -%}
    {%- set system_message = '""" + DEFAULT_SYSTEM + r"""' -%}
    {%- set loop_messages = messages -%}
{%- endif -%}
{{- '<|im_start|>system\n' + (system_message or '') -}}
{%- if tools -%}
    {{- '\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>' -}}
    {%- for tool in tools -%}
        {{- '\n' + (tool | tojson) -}}
    {%- endfor -%}
    {{- '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>' -}}
{%- endif -%}
{{- '<|im_end|>\n' -}}
{%- for message in loop_messages -%}
    {%- if message['role'] == 'user' or message['role'] == 'system' -%}
        {{- '<|im_start|>' + message['role'] + '\n' + (message['content'] or '') + '<|im_end|>\n' -}}
    {%- elif message['role'] == 'assistant' -%}
        {{- '<|im_start|>assistant\n' -}}
        {%- generation -%}
        {{- message['content'] or '' -}}
        {%- if message['tool_calls'] -%}
            {%- for tool_call in message['tool_calls'] -%}
                {%- if tool_call['function'] is defined -%}
                    {%- set tool_call = tool_call['function'] -%}
                {%- endif -%}
                {%- if (loop.first and message['content']) or not loop.first -%}
                    {{- '\n' -}}
                {%- endif -%}
                {{- '<tool_call>\n{"name": "' + tool_call['name'] + '", "arguments": ' -}}
                {%- if tool_call['arguments'] is string -%}
                    {{- tool_call['arguments'] -}}
                {%- else -%}
                    {{- tool_call['arguments'] | tojson -}}
                {%- endif -%}
                {{- '}\n</tool_call>' -}}
            {%- endfor -%}
        {%- endif -%}
        {{- '<|im_end|>' -}}
        {%- endgeneration -%}
        {{- '\n' -}}
    {%- elif message['role'] == 'tool' -%}
        {%- if loop.first or loop_messages[loop.index0 - 1]['role'] != 'tool' -%}
            {{- '<|im_start|>user' -}}
        {%- endif -%}
        {{- '\n<tool_response>\n' + (message['content'] or '') + '\n</tool_response>' -}}
        {%- if loop.last or loop_messages[loop.index0 + 1]['role'] != 'tool' -%}
            {{- '<|im_end|>\n' -}}
        {%- endif -%}
    {%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
    {{- '<|im_start|>assistant\n' -}}
{%- endif -%}
"""

_CORPUS_KO = [
    "서울특별시 종로구의 미세먼지 농도를 알려줘.",
    "부산광역시 해운대구 근처 측정소의 초미세먼지 PM2.5 값은 얼마인가요?",
    "오늘 서울 강남역 근처 버스 도착 정보와 지하철 혼잡도를 조회해 주세요.",
    "대전광역시 유성구 초등학교 목록과 학생 수를 비교해 줘.",
    "국회의원 법률안 발의 현황과 본회의 처리 결과를 보여줘.",
    "한국은행 기준금리와 원달러 환율 추이를 알려 주세요.",
    "측정소 이름, 주소, 거리(km)를 표로 정리했습니다. 가장 가까운 측정소는 종로구입니다.",
    "결과: 총 3건이 조회되었습니다. 평균값은 31㎍/㎥이고 최댓값은 45입니다.",
    "관광지 정보, 날씨 예보, 단기예보 격자 좌표(nx, ny)를 사용합니다.",
]
_CORPUS_EN = [
    "You are a helpful assistant. Use the tools to answer the user's question.",
    "The nearest air quality station is Jongno-gu; PM10 is 31 and PM2.5 is 18.",
    "I will call the tool to look up the station list, then read the measurements.",
    "Final answer: there were 3 records, the average value is 12.5 and the maximum is 20.",
    "For each function call, return a json object with function name and arguments.",
]
_CORPUS_JSON = [
    {"name": "airkorea_getNearbyMsrstnList", "arguments": {"tmX": 244148.5, "tmY": 412423.7}},
    {"name": "airkorea_getMsrstnAcctoRltmMesureDnsty", "arguments": {"stationName": "종로구", "dataTerm": "DAILY"}},
    {"resultCode": "00", "resultMsg": "NORMAL SERVICE.", "totalCount": 2,
     "items": [{"stationName": "종로구", "pm10Value": "31"}, {"stationName": "중구", "pm10Value": "28"}]},
    {"type": "function", "function": {"name": "get_weather", "description": "Get the weather for a city",
     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
    {"error": {"type": "argument", "message": "missing required parameter 'stationName'", "code": "10"}},
]


def _corpus() -> list[str]:
    lines = list(_CORPUS_KO) + list(_CORPUS_EN)
    for obj in _CORPUS_JSON:
        lines.append(json.dumps(obj, ensure_ascii=False))
        lines.append(json.dumps(obj, ensure_ascii=False, indent=2))
    for obj in _CORPUS_JSON[:2]:
        lines.append("<tool_call>\n" + json.dumps(obj, ensure_ascii=False) + "\n</tool_call>")
    # Synthetic lines so BPE has enough distinct pairs for a ~2-3k vocabulary.
    places = ["서울특별시", "부산광역시", "대구광역시", "인천광역시", "광주광역시", "대전광역시", "울산광역시",
              "세종특별자치시", "경기도", "강원특별자치도", "충청북도", "충청남도", "전북특별자치도", "전라남도",
              "경상북도", "경상남도", "제주특별자치도"]
    districts = ["종로구", "중구", "용산구", "성동구", "광진구", "해운대구", "수성구", "남동구", "유성구", "북구",
                 "수원시", "춘천시", "청주시", "천안시", "전주시", "목포시", "포항시", "창원시", "제주시"]
    topics = ["미세먼지", "초미세먼지", "오존", "버스 도착", "지하철 혼잡도", "학교 정보", "법률안", "환율",
              "기준금리", "관광지", "단기예보", "인구 통계", "아파트 실거래가", "주차장", "도서관"]
    words = ("station name value total count items result code message date time page number rows type "
             "status error argument platform query answer tool call records average maximum minimum sum "
             "difference weather forecast traffic finance education law politics district").split()
    for i, place in enumerate(places):
        for j, gu in enumerate(districts):
            topic = topics[(i + j) % len(topics)]
            lines.append(f"{place} {gu}의 {topic} 정보를 조회합니다. 결과는 {i * 37 + j}건입니다.")
            lines.append(json.dumps({"sidoName": place, "sggName": gu, "category": topic,
                                     "value": f"{(i * 13 + j * 7) % 100}.{j}", "date": f"2024-{i % 12 + 1:02d}-{j + 1:02d}"},
                                    ensure_ascii=False))
    for i, w in enumerate(words):
        lines.append(f"The {w} is {words[(i * 7) % len(words)]} and {words[(i * 11) % len(words)]}: {i * 101}.")
        lines.append(f'"{w}Name": "{words[(i * 3) % len(words)]}", "{w}Value": "{i * 17}"')
    lines.extend(str(i) for i in range(0, 10000, 7))
    return lines * 2


# Qwen3.5 writes calls as XML, not JSON: a few lines so BPE learns the tags (qwen3_5 tokenizer only).
_CORPUS_QWEN3_5 = [
    "<tool_call>\n<function=airkorea_getTMStdrCrdnt>\n<parameter=umdName>\n혜화동\n</parameter>\n</function>\n</tool_call>",
    "<tool_call>\n<function=airkorea_getMsrstnAcctoRltmMesureDnsty>\n<parameter=stationName>\n종로구\n</parameter>\n"
    "<parameter=dataTerm>\nDAILY\n</parameter>\n</function>\n</tool_call>",
    "<think>\nI need the station list first.\n</think>\n\n",
]
# The real Qwen3.5 tokenizer's vision tokens (special); the template emits them for image/video parts.
QWEN3_5_VISION_TOKENS = ["<|vision_start|>", "<|vision_end|>", "<|image_pad|>", "<|video_pad|>"]


def qwen3_5_chat_template() -> str:
    """The original Qwen3.5 chat template, as shipped by Qwen/Qwen3.5-4B and -9B (from TRL's copies, offline).

    TRL ships two Qwen3.5 variants that differ only in the default of ``enable_thinking``:
    ``qwen3_5_think.jinja`` ("shipped by Qwen3.5-4B and larger", trl/chat_templates/README.md) and
    ``qwen3_5_nothink.jinja`` (2B and smaller). Both GPU recipes train 4B/9B, so the think variant.
    It must stay byte-identical to TRL's file: TRL recognises it by equality to pick the response
    parser (``add_response_schema``) and the prefix-preserving training template GRPO swaps in.
    """
    from trl.chat_template_utils import qwen3_5_think_chat_template

    return qwen3_5_think_chat_template


def build_tokenizer(vocab_size: int = 3000, *, chat_template: str = CHAT_TEMPLATE, extra_corpus: tuple[str, ...] = (),
                    extra_special: tuple[str, ...] = (), model_max_length: int = 2048):
    """Byte-level BPE trained on the built-in corpus, wrapped as a transformers fast tokenizer.

    The keyword arguments are for the qwen3_5 variant; their defaults give the qwen2/qwen3 tokenizer.
    """
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS + list(extra_special),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_corpus() + list(extra_corpus) * 4, trainer=trainer)
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in TAG_TOKENS])
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        chat_template=chat_template,
        model_max_length=model_max_length,
        padding_side="left",  # decoder-only batch generation pads on the left
    )


def _tiny_dims(tokenizer, eos_id: int, pad_id: int) -> dict:
    """What every tiny architecture shares: vocabulary, widths, heads, tied embeddings, special ids."""
    return dict(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_attention_heads=4,
                num_key_value_heads=2, tie_word_embeddings=True, bos_token_id=None, eos_token_id=eos_id,
                pad_token_id=pad_id)


def _qwen3_5_config(tokenizer, eos_id: int, pad_id: int):
    """A tiny Qwen3.5 *text* config with the real model's layer mix.

    Qwen3.5 alternates Gated-DeltaNet linear-attention layers with full (gated, partial-RoPE)
    attention, three to one (``full_attention_interval=4``); 4 layers keep that ratio. All head
    sizes are shrunk, the structure is not. The hub checkpoints are the multimodal
    ``Qwen3_5ForConditionalGeneration``; ``AutoModelForCausalLM`` loads their text part as this
    same ``Qwen3_5ForCausalLM`` class (train/modeling.py, tests/test_train_grpo.py check that).
    """
    from transformers import Qwen3_5TextConfig

    return Qwen3_5TextConfig(
        **_tiny_dims(tokenizer, eos_id, pad_id),
        num_hidden_layers=4,
        layer_types=["linear_attention", "linear_attention", "linear_attention", "full_attention"],
        head_dim=16,
        linear_num_key_heads=2,
        linear_num_value_heads=4,
        linear_key_head_dim=16,
        linear_value_head_dim=16,
        linear_conv_kernel_dim=4,
        # tool schemas in both languages make long prompts; TRL drops tool turns past this length
        max_position_embeddings=32768,
    )


def _qwen3_5_vl_config(text_config, tokenizer):
    """The hub checkpoints' composite config around the tiny text config, with a one-block vision tower."""
    from transformers import Qwen3_5Config

    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in QWEN3_5_VISION_TOKENS}
    return Qwen3_5Config(
        text_config=text_config.to_dict(),
        vision_config=dict(depth=1, hidden_size=32, intermediate_size=64, num_heads=2, out_hidden_size=text_config.hidden_size,
                           patch_size=16, spatial_merge_size=2, temporal_patch_size=2, num_position_embeddings=64),
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"],
        tie_word_embeddings=text_config.tie_word_embeddings,
    )


def build_tiny_model(out_dir: str | Path, *, arch: str = "qwen2", seed: int = 0, vocab_size: int = 3000) -> Path:
    """Write a tiny random model + tokenizer to ``out_dir`` and return it.

    ``arch`` is ``"qwen2"``, ``"qwen3"``, ``"qwen3_5"`` or ``"qwen3_5_vl"``. The same ``seed`` gives
    the same weights. ``qwen3_5`` is a text-only ``Qwen3_5ForCausalLM``; ``qwen3_5_vl`` has the
    layout of the hub checkpoints (``Qwen3_5ForConditionalGeneration``: the same text model under
    ``model.language_model.*`` plus a one-block vision tower), to check how they load. Both get the
    real Qwen3.5 chat template (``<tool_call><function=...>`` calls, ``<think>`` opener) and the
    Qwen3.5 vision special tokens.
    """
    import torch
    from transformers import AutoModelForCausalLM, GenerationConfig

    tokenizer_kwargs: dict = {}
    if arch == "qwen2":
        from transformers import Qwen2Config as Config

        extra: dict = {}
    elif arch == "qwen3":
        from transformers import Qwen3Config as Config

        extra = {"head_dim": 16}
    elif arch in ("qwen3_5", "qwen3_5_vl"):
        Config = None
        tokenizer_kwargs = dict(chat_template=qwen3_5_chat_template(), extra_corpus=tuple(_CORPUS_QWEN3_5),
                                extra_special=tuple(QWEN3_5_VISION_TOKENS), model_max_length=32768)
    else:
        raise ValueError(f"unknown tiny model arch {arch!r}; use 'qwen2', 'qwen3', 'qwen3_5' or 'qwen3_5_vl'")

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer(vocab_size, **tokenizer_kwargs)
    eos_id = tokenizer.convert_tokens_to_ids("<|im_end|>")
    pad_id = tokenizer.convert_tokens_to_ids("<|endoftext|>")
    if Config is None:
        config = _qwen3_5_config(tokenizer, eos_id, pad_id)
        if arch == "qwen3_5_vl":
            config = _qwen3_5_vl_config(config, tokenizer)
    else:
        config = Config(**_tiny_dims(tokenizer, eos_id, pad_id), num_hidden_layers=2, max_position_embeddings=2048, **extra)
    torch.manual_seed(seed)
    if arch == "qwen3_5_vl":
        from transformers import Qwen3_5ForConditionalGeneration

        # AutoModelForCausalLM.from_config would build the text part only; the hub layout is the whole model
        model = Qwen3_5ForConditionalGeneration(config).to(torch.float32)
    else:
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.generation_config = GenerationConfig(eos_token_id=[eos_id, pad_id], pad_token_id=pad_id)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    logger.info("tiny %s model (%d params, vocab %d) written to %s", arch, model.num_parameters(), len(tokenizer), out)
    return out
