"""A tiny random causal LM with a real chat template, for fast offline tests.

:func:`build_tiny_model` writes a folder that ``AutoModelForCausalLM.from_pretrained`` and
``AutoTokenizer.from_pretrained`` load like any checkpoint:

* model: Qwen2 (or Qwen3) architecture, hidden 64, 2 layers, random init from a fixed seed;
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


def build_tokenizer(vocab_size: int = 3000):
    """Byte-level BPE trained on the built-in corpus, wrapped as a transformers fast tokenizer."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_corpus(), trainer=trainer)
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in TAG_TOKENS])
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        chat_template=CHAT_TEMPLATE,
        model_max_length=2048,
        padding_side="left",  # decoder-only batch generation pads on the left
    )


def build_tiny_model(out_dir: str | Path, *, arch: str = "qwen2", seed: int = 0, vocab_size: int = 3000) -> Path:
    """Write a tiny random model + tokenizer to ``out_dir`` and return it.

    ``arch`` is ``"qwen2"`` or ``"qwen3"``. The same ``seed`` gives the same weights.
    """
    import torch
    from transformers import AutoModelForCausalLM, GenerationConfig

    if arch == "qwen2":
        from transformers import Qwen2Config as Config

        extra: dict = {}
    elif arch == "qwen3":
        from transformers import Qwen3Config as Config

        extra = {"head_dim": 16}
    else:
        raise ValueError(f"unknown tiny model arch {arch!r}; use 'qwen2' or 'qwen3'")

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer(vocab_size)
    eos_id = tokenizer.convert_tokens_to_ids("<|im_end|>")
    pad_id = tokenizer.convert_tokens_to_ids("<|endoftext|>")
    config = Config(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        tie_word_embeddings=True,
        bos_token_id=None,
        eos_token_id=eos_id,
        pad_token_id=pad_id,
        **extra,
    )
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.generation_config = GenerationConfig(eos_token_id=[eos_id, pad_id], pad_token_id=pad_id)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    logger.info("tiny %s model (%d params, vocab %d) written to %s", arch, model.num_parameters(), len(tokenizer), out)
    return out
