"""The versioned price table: what a call costs, from its provider, model and usage.

Prices live in ``prices.json`` beside this module (per provider and model,
with the source and the date they were checked), so a price change is a
reviewed commit, and every cost figure can name the table version it used.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel

from .usage import Usage

PRICES_PATH = Path(__file__).with_name("prices.json")


class UnpricedModel(LookupError):
    """A call the table cannot price: the proxy refuses it, since it could not enforce a budget."""


class ModelPrice(BaseModel):
    """USD per million tokens. Cache writes cost the input price unless the provider says otherwise."""

    input: float
    output: float
    cached_input: float
    cache_write: float | None = None

    def cents(self, usage: Usage) -> float:
        per_token_cents = 100 / 1_000_000
        write = self.cache_write if self.cache_write is not None else self.input
        return per_token_cents * (
            usage.input_tokens * self.input
            + usage.cached_input_tokens * self.cached_input
            + usage.cache_write_tokens * write
            + usage.output_tokens * self.output
        )


class ProviderPrices(BaseModel):
    source: str
    checked: str
    models: dict[str, ModelPrice]


class PriceTable(BaseModel):
    version: str
    unit: str
    note: str = ""
    providers: dict[str, ProviderPrices]

    def price(self, provider: str, model: str) -> ModelPrice:
        """Exact model name, else the longest listed prefix (``claude-sonnet-4-5-20250929`` -> ``claude-sonnet-4-5``)."""
        models = self.providers.get(provider)
        if models is None:
            raise UnpricedModel(f"no prices for provider {provider!r} in price table {self.version}")
        matches = [name for name in models.models if model == name or model.startswith(name + "-")]
        if not matches:
            raise UnpricedModel(f"no price for {provider}/{model} in price table {self.version}")
        return models.models[max(matches, key=len)]

    def cents(self, provider: str, model: str, usage: Usage) -> float:
        return self.price(provider, model).cents(usage)


@lru_cache(maxsize=1)
def price_table() -> PriceTable:
    return PriceTable.model_validate_json(PRICES_PATH.read_text())
