//! The convention every service's entities share: `to_dict()` is the serde serialization of the
//! entity (the stored document exactly as the spec writes it), `from_dict()` its deserialization.

use serde::de::DeserializeOwned;
use serde::Serialize;
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
