"""Envelope families: each module knows one wire format from both sides (sandbox + client)."""

from .base import Parsed, ParamProblem, RequestSpec, get_protocol, model_args_problem, validate_params

__all__ = ["ParamProblem", "Parsed", "RequestSpec", "get_protocol", "model_args_problem", "validate_params"]
