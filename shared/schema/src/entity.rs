//! The convention every service's entities share: `to_dict()` is the serde serialization of the
//! entity (the stored document exactly as the spec writes it), `from_dict()` its deserialization.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// The conversion every entity shares.
pub trait Entity: Serialize + DeserializeOwned {
    /// The stored document, exactly as the spec writes it.
    fn to_dict(&self) -> Value {
        serde_json::to_value(self).expect("entities always serialize")
    }
    /// Reads a stored document.
    fn from_dict(v: &Value) -> Result<Self, serde_json::Error> {
        <Self as serde::Deserialize>::deserialize(v)
    }
}

/// `#[serde(default, deserialize_with = "null_as_default")]`: reads `null` as the field's
/// default, as an absent key is read (compat: clients and older documents write `null` for an
/// unset field; the spec's `from_dict()` defaults every such field).
pub fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}
