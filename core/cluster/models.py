"""The training models a cluster job may run: gradient size and compute time per iteration.

Each model is described by published facts only — its parameter count and its forward FLOPs
per sample — and one documented assumption, the effective GPU throughput; from these the
job's gradient size (fp32, 4 bytes a parameter, what DDP all-reduces) and its compute time
per iteration follow (docs/cluster.md, "Models"):

    gradient bytes   = 4 · parameters
    compute seconds  = 3 · forward FLOPs per sample · samples per GPU / EFFECTIVE_FLOPS

(the backward pass costs about twice the forward pass, hence 3; for transformers the forward
FLOPs per token are 2 · parameters, Kaplan et al. 2020, "Scaling Laws for Neural Language
Models", so 6 · parameters per token trained). CNN figures are torchvision's model tables
(parameters and GFLOPS per 224x224 image; Inception v3 at 299x299).
"""

from __future__ import annotations

from dataclasses import dataclass

EFFECTIVE_FLOPS = 30e12
"""FLOP/s one GPU sustains in training (assumption): about what an A100 reaches on ResNet-50 in
mixed precision (≈2,500 images/s × 12.3 GFLOP per image trained), a tenth of its dense fp16 peak."""


@dataclass(frozen=True)
class Model:
    """One model: name, parameters, forward FLOPs per sample, samples per GPU per iteration."""

    name: str
    params: float
    """Parameters (the gradient has as many values)."""
    fwd_flops: float
    """Forward FLOPs per sample (an image, or a sequence of `tokens`)."""
    batch: int
    """Samples per GPU per iteration."""
    source: str

    @property
    def grad_bytes(self) -> float:
        """Bytes all-reduced per iteration: fp32 gradients."""
        return 4.0 * self.params

    @property
    def compute_s(self) -> float:
        """Seconds of forward and backward compute per iteration on one GPU."""
        return 3.0 * self.fwd_flops * self.batch / EFFECTIVE_FLOPS


def _lm(name: str, params: float, tokens: int, seqs: int, source: str) -> Model:
    return Model(name, params, 2.0 * params * tokens, seqs, source)


MODELS: dict[str, Model] = {m.name: m for m in (
    Model("resnet18", 11.69e6, 1.81e9, 64, "torchvision ResNet18_Weights: 11.7M params, 1.81 GFLOPS"),
    Model("resnet50", 25.56e6, 4.09e9, 64, "torchvision ResNet50_Weights: 25.6M params, 4.09 GFLOPS"),
    Model("vgg16", 138.36e6, 15.47e9, 64, "torchvision VGG16_Weights: 138.4M params, 15.47 GFLOPS"),
    Model("alexnet", 61.10e6, 0.71e9, 64, "torchvision AlexNet_Weights: 61.1M params, 0.71 GFLOPS"),
    Model("inception_v3", 27.16e6, 5.71e9, 64, "torchvision Inception_V3_Weights: 27.2M params, 5.71 GFLOPS"),
    _lm("bert_base", 110e6, 512, 8, "Devlin et al. 2019: 110M params; 8 sequences of 512 tokens"),
    _lm("gpt2", 124e6, 1024, 4, "Radford et al. 2019 (GPT-2 small, 124M params); 4 sequences of 1024 tokens"),
)}
"""The catalog, by name."""


def get_model(name: str) -> Model:
    """The catalog entry of `name` (ValueError naming the known models)."""
    try:
        return MODELS[name]
    except KeyError:
        raise ValueError(f"unknown model {name!r}; known: {', '.join(MODELS)}") from None


def model_names() -> list[str]:
    """Names of the catalog's models, in catalog order."""
    return list(MODELS)
