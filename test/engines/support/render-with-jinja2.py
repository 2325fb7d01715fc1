# Renders a chat template the way Hugging Face's apply_chat_template does (transformers'
# _compile_jinja_template: ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks, loopcontrols,
# raise_exception, tojson, strftime_now), as the independent Jinja implementation the chat-format
# tests compare Spark's llama.cpp rendering against. One JSON request a line on stdin, one JSON
# answer a line on stdout, in order: a test file starts Python once, not once per render.
import json
import sys
from datetime import datetime

import jinja2
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedEnvironment


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def render(request, environment_class):
    # Local time, as llama.cpp's strftime_now (std::localtime).
    now = datetime.fromtimestamp(request["now"] / 1000)
    environment = environment_class(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    environment.filters["tojson"] = tojson
    environment.globals["raise_exception"] = raise_exception
    environment.globals["strftime_now"] = lambda format: now.strftime(format)
    arguments = {
        "messages": request["messages"],
        "add_generation_prompt": request.get("add_generation_prompt", True),
        "bos_token": request.get("bos_token", ""),
        "eos_token": request.get("eos_token", ""),
        # llama-server's default (and Spark's): templates with a thinking switch render it on.
        "enable_thinking": True,
    }
    if request.get("tools"):
        arguments["tools"] = request["tools"]
    return environment.from_string(request["template"]).render(**arguments)


def answer(request):
    try:
        try:
            return {"prompt": render(request, ImmutableSandboxedEnvironment)}
        except jinja2.exceptions.SecurityError:
            # Templates that mutate lists (Kimi-K2's `.append`) fail in transformers' immutable
            # sandbox; vLLM and llama.cpp render them, so compare against the mutable sandbox.
            return {"prompt": render(request, SandboxedEnvironment)}
    except Exception as error:
        return {"error": f"{type(error).__name__}: {error}"}


for line in sys.stdin:
    if line.strip() == "":
        continue
    sys.stdout.write(json.dumps(answer(json.loads(line))) + "\n")
    sys.stdout.flush()
